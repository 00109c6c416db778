import Adapters
import BoardKit
import Emulation
import Foundation
import TestScheduling
import TestSupport
import Testing

@Suite struct DGTPersonalityTests {
    typealias Link = EmulatedLink<DGTAdapter, DGTPersonality>

    static func link(_ personality: DGTPersonality = DGTPersonality(), adapter: DGTAdapter = DGTAdapter()) -> Link {
        var link = Link(adapter, personality)
        link.connect()
        return link
    }

    @Test func handshakeReadsBoardSerialVersionAndClock() {
        let link = Self.link()
        #expect(link.events.contains(.ready))
        #expect(link.events.contains(.pieces(.startingPosition)))
        #expect(link.events.contains(.serialNumber("12345")))
        #expect(link.events.contains(.version("1.2")))
        #expect(link.events.contains(.clock(BoardClockReading(left: 300, right: 300, running: nil, leverUp: .left))))
        #expect(link.personality.mode == .fieldsAndClockOnChange)
        #expect(link.personality.violations.total == 0)
    }

    @Test func aBoardWithoutAClockSaysSo() {
        let link = Self.link(DGTPersonality(options: .init(clock: nil)))
        #expect(link.events.contains(.clock(nil)))
    }

    @Test(arguments: [UInt64(4), 5])
    func physicalPlayIsReflectedAfterEveryAction(seed: UInt64) {
        var link = Self.link()
        SampleGames.play(SampleGames.specialMoves, on: &link, style: .random, seed: seed) { link in
            #expect(link.lastPieces == link.personality.board)
        }
        #expect(link.adapter.snapshot == link.personality.board)
        #expect(link.personality.violations.total == 0)
    }

    @Test func aFlippedBoardReportsTheRotatedBoard() {
        let link = Self.link(DGTPersonality(isFlipped: true))
        #expect(link.lastPieces == BoardSnapshot.startingPosition.rotated)
    }

    @Test func theLeverRunsTheOtherSideAndTheTimesCountDown() {
        var link = Self.link()
        link.perform(.pressButton("lever_right"))  // Black, on the right, starts White's time.
        #expect(link.events.last == .clock(BoardClockReading(left: 300, right: 300, running: .left, leverUp: .left)))
        link.run(for: 10)
        #expect(link.events.last.flatMap(Self.reading)?.left == 290)
        #expect(link.events.last.flatMap(Self.reading)?.right == 300)
        link.perform(.pressButton("lever_left"))
        #expect(link.events.last.flatMap(Self.reading)?.running == .right)
        link.run(for: 5)
        let reading = link.events.last.flatMap(Self.reading)
        #expect(reading?.right == 295 && reading?.left == 290)
        // On change only (4B): one message per second shown, none while the display stands.
        let count = link.events.count
        link.perform(.pressButton("clock_stop"))
        link.run(for: 5)
        #expect(link.events.count == count + 1)
    }

    @Test func everySecondModeSendsTheClockEachSecond() {
        var link = Self.link()
        link.write(Data([DGTWire.requestUpdates]))
        let count = link.events.count
        link.run(for: 4)
        #expect(link.events.count - count == 4)
    }

    @Test func settingTheClockIsReported() {
        var link = Self.link()
        link.deliver(link.personality.setClock(left: 61, right: 3601, running: false, at: link.time))
        #expect(link.events.last == .clock(BoardClockReading(left: 61, right: 3601, running: nil, leverUp: .left)))
    }

    @Test func revelationIILightsTheFieldsItIsAskedTo() {
        let options = DGTPersonality.Options(model: .revelationII)
        var link = Self.link(DGTPersonality(options: options), adapter: DGTAdapter(model: .revelationII))
        link.send(.indicate(squares: [.e2, .e4], style: .move))
        #expect(link.personality.litSquares == [.e2, .e4])
        link.send(.clearIndications)
        #expect(link.personality.litSquares.isEmpty)
        #expect(link.personality.violations.total == 0)
    }

    @Test func theBluetoothBoardReportsItsBattery() {
        let link = Self.link(
            DGTPersonality(options: .init(model: .bluetooth)), adapter: DGTAdapter(model: .bluetooth))
        #expect(link.events.contains(.battery(percent: 100, charging: nil)))
    }

    @Test func aClockMessageIsTakenAndAResetStopsUpdates() {
        var link = Self.link()
        link.write(Data([0x2B, 0x04, 0x03, 0x0B, 0x10, 0x00]))  // clock message: beep
        link.write(Data([DGTWire.reset]))
        let count = link.events.count
        link.perform(.lift(.e2))
        #expect(link.events.count == count)
        #expect(link.personality.violations.total == 0)
    }

    static func reading(_ event: BoardEvent) -> BoardClockReading? {
        if case .clock(let reading) = event { reading } else { nil }
    }
}

/// Random legal games played by hand on the emulated DGT e-Board, recovered move for
/// move by the kernel's identity path.
@Suite(.cpuBound) struct DGTKernelRoundTripTests {
    @Test func fiftyRandomGamesAreRecovered() {
        var totals = ChessUpSquareOffRoundTrip()
        for seed in UInt64(1)...50 {
            var link = ChessUpSquareOffLink(DGTPersonality(options: .init(clock: nil)), DGTAdapter())
            let result = link.playRandomGame(seed: seed, maxPlies: 120, underpromotes: true)
            #expect(result.tracked == result.played, "game \(seed)")
            #expect(!result.outputs.contains { if case .illegalMove = $0 { true } else { false } }, "game \(seed)")
            #expect(link.personality.violations == ProtocolViolations(), "game \(seed)")
            totals.castlings += result.castlings
            totals.promotions += result.promotions
        }
        #expect(totals.castlings >= 20)
        #expect(totals.promotions >= 10)
    }
}
