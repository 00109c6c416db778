import Adapters
import BoardKit
import Foundation
import TestSupport
import Testing

@testable import BlueZ

/// Issue #16 (7): a board that never answers its handshake (a ChessUp that stays silent)
/// is reported as `.handshakeFailed` once the handshake's steps and
/// ``BlueZTransportSettings/handshakeTimeout`` have passed; a board that answers never is.
@MainActor
@Suite(.serialized, .enabled(if: TestTools.available("dbus-daemon")))
struct BlueZHandshakeTimeoutTests {
    static func settings(handshakeTimeout: TimeInterval) -> BlueZTransportSettings {
        var settings = SimulatorFixture.settings
        settings.handshakeTimeout = handshakeTimeout
        return settings
    }

    @Test(arguments: [BoardFamily.chessUp, .dgtPegasus])
    func aSilentBoardIsReportedAsAFailedHandshake(family: BoardFamily) async throws {
        let fixture = try await SimulatorFixture(boards: [SimulatedBoards.specification(family) + ",silent=true"])
        defer { fixture.stop() }
        fixture.manager.start()
        let transport = try fixture.transport(family, settings: Self.settings(handshakeTimeout: 0.5))
        let recorder = EventRecorder(transport.events)
        defer { recorder.stop() }
        transport.start()
        let failed = await eventually {
            recorder.events.contains { if case .handshakeFailed = $0 { true } else { false } }
        }
        #expect(failed, "events \(recorder.events)\n\(fixture.log.text)")
        let reasons = recorder.events.compactMap { event -> String? in
            if case .handshakeFailed(let reason) = event { reason } else { nil }
        }
        #expect(reasons.count == 1)
        #expect(reasons.first?.hasPrefix("no answer to the handshake after ") == true, "\(reasons)")
        #expect(reasons.first?.hasSuffix(" s") == true, "\(reasons)")
        #expect(!recorder.events.contains(.ready))
        #expect(transport.state == .connected)
        #expect(fixture.log.text.contains("no answer to the handshake"))
    }

    /// The timer is given a deadline a loaded test process meets (CI ran it at 0.2 s, and a
    /// main actor busy with other suites for longer than that made the answer late); once
    /// the board answers, the timer is gone: it cannot report later.
    @Test func aBoardThatAnswersIsNeverReportedAsFailed() async throws {
        let fixture = try await SimulatorFixture(boards: [SimulatedBoards.chessUp])
        defer { fixture.stop() }
        fixture.manager.start()
        let transport = try fixture.transport(.chessUp, settings: Self.settings(handshakeTimeout: 5))
        let recorder = EventRecorder(transport.events)
        defer { recorder.stop() }
        transport.start()
        #expect(await eventually { recorder.events.contains(.ready) }, "events \(recorder.events)")
        let link = try #require(transport.link)
        #expect(link.handshakeAnswered)
        #expect(link.handshakeTimer == nil)
        #expect(!fixture.log.contains("no answer to the handshake"), "\(fixture.log.text)")
        #expect(!recorder.events.contains { if case .handshakeFailed = $0 { true } else { false } })
    }
}
