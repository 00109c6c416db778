import Adapters
import BoardKit
import Emulation
import Kernel
import TestScheduling
import Testing

/// Random legal games played by hand on the emulated ChessUp, reported through the adapter
/// (acks written back) and recovered move for move by the kernel's ``GameTracker``.
@Suite(.cpuBound) struct ChessUpKernelRoundTripTests {
    @Test func hundredRandomGamesAreRecovered() {
        var totals = ChessUpSquareOffRoundTrip()
        for seed in UInt64(1)...100 {
            var link = ChessUpSquareOffLink(ChessUpPersonality(), ChessUpAdapter())
            let result = link.playRandomGame(seed: seed, maxPlies: 120, underpromotes: true)
            #expect(result.tracked == result.played, "game \(seed)")
            #expect(!result.outputs.contains { if case .illegalMove = $0 { true } else { false } }, "game \(seed)")
            #expect(link.personality.violations == ProtocolViolations(), "game \(seed)")
            #expect(link.personality.unacknowledgedFrameCount == 0, "game \(seed)")
            totals.played += result.played
            totals.castlings += result.castlings
            totals.enPassants += result.enPassants
            totals.promotions += result.promotions
        }
        // The corpus exercises the special moves.
        #expect(totals.castlings >= 40)
        #expect(totals.enPassants >= 20)
        #expect(totals.promotions >= 40)
    }
}
