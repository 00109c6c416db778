import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue #28: a test broker's port is chosen free, then released for mosquitto to bind; a
/// listener of a test running beside it (a fake broker binding port 0) can take that port
/// first. mosquitto then exits with `Address already in use`, while the other listener
/// answers on the port: the broker looked ready, and the test talked to the wrong server
/// (seen in CI: `MQTTRoundTripTests` against `MQTTProtocolFallbackTests`' fake broker).
@Suite struct MosquittoBrokerTests {
    @Test(.enabled(if: TestTools.available("mosquitto")))
    func aPortTakenBeforeMosquittoBindsItIsReplaced() async throws {
        let broker = try MosquittoBroker()
        let taken = broker.port
        // Another listener takes the port first.
        let thief = LoopbackSocket.tcp()
        defer { close(thief) }
        var reuse: Int32 = 1
        setsockopt(thief, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        try #require(LoopbackSocket.bind(thief, port: taken) && listen(thief, 8) == 0)
        try await broker.start()
        defer { broker.stop() }
        #expect(broker.port != taken)
        #expect(broker.isRunning)
        #expect(broker.log.contains("listen socket on port \(broker.port)"), "\(broker.log)")
    }
}
