import Adapters
import BoardKit
import Emulation
import Kernel
import TestScheduling
import Testing

/// Random legal games played by hand on the emulated Square Off, sensed as lifts and
/// placements through the adapter and recovered move for move by the kernel's ``GameTracker``.
@Suite(.cpuBound) struct SquareOffKernelRoundTripTests {
    @Test(arguments: SquareOffAdapter.Variant.allCases)
    func hundredRandomGamesAreRecovered(variant: SquareOffAdapter.Variant) {
        var totals = ChessUpSquareOffRoundTrip()
        for seed in UInt64(1)...100 {
            var link = ChessUpSquareOffLink(
                SquareOffPersonality(options: .init(variant: variant)), SquareOffAdapter(variant: variant))
            let result = link.playRandomGame(seed: seed, maxPlies: 120, underpromotes: false)
            #expect(result.tracked == result.played, "game \(seed)")
            #expect(!result.outputs.contains { if case .illegalMove = $0 { true } else { false } }, "game \(seed)")
            #expect(link.personality.violations == ProtocolViolations(), "game \(seed)")
            totals.castlings += result.castlings
            totals.enPassants += result.enPassants
            totals.promotions += result.promotions
        }
        #expect(totals.castlings >= 40)
        #expect(totals.enPassants >= 20)
        #expect(totals.promotions >= 40)
    }
}
