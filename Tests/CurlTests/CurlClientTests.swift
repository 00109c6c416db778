import Curl
import Foundation
import TestSupport
import Testing

/// libcurl through ``CurlClient`` against a real HTTP server on loopback (a Python stub
/// of a relay): statuses, headers, bodies, the body limit, timeouts and a closed port.
@Suite(.serialized) struct CurlClientTests {
    /// Starts the relay stub; returns it, its base URL and its request log.
    static func startStub() async throws -> (ManagedProcess, String, URL) {
        let python = try TestTools.require("python3")
        let port = TestTools.freeLoopbackPort()
        let log = try TestTools.temporaryDirectory("curl").appendingPathComponent("requests.jsonl")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("relay_stub.py")
        let stub = ManagedProcess(executable: python, arguments: [script.path, String(port), log.path])
        try stub.start()
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        while !TestTools.acceptsConnections(port: port), clock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        return (stub, "http://127.0.0.1:\(port)", log)
    }

    @Test func postsABodyWithHeadersAndReadsTheAnswer() async throws {
        let (stub, base, log) = try await Self.startStub()
        defer { stub.stop() }
        let client = CurlClient()
        let pgn = "[White \"Doe, J\"]\n[Black \"Roe, R\"]\n\n1. e4 e5 *\n"
        let response = try await client.perform(
            CurlRequest(
                url: "\(base)/push/abc", method: "POST",
                headers: [("Authorization", "Bearer good"), ("Content-Type", "text/plain")], body: Array(pgn.utf8))
        ).get()
        #expect(response.status == 200)
        #expect(response.header("content-type") == "application/json")
        #expect(response.text.contains(#""moves": 2"#))
        let recorded = try String(contentsOf: log, encoding: .utf8)
        #expect(recorded.contains(#""Authorization": "Bearer good""#))
        #expect(recorded.contains("1. e4 e5 *"))
        // Statuses are answers, not errors.
        let refused = try await client.perform(CurlRequest(url: "\(base)/push/abc", method: "POST")).get()
        #expect(refused.status == 401)
        let limited = try await client.perform(
            CurlRequest(url: "\(base)/push/limited", method: "POST", headers: [("Authorization", "Bearer good")])
        ).get()
        #expect(limited.status == 429)
        #expect(limited.header("Retry-After") == "7")
    }

    @Test func aBodyPastTheLimitAndASlowServerFailWithReasons() async throws {
        let (stub, base, _) = try await Self.startStub()
        defer { stub.stop() }
        let client = CurlClient()
        let big = await client.perform(CurlRequest(url: "\(base)/big", maxResponseBytes: 1 << 20))
        guard case .failure(let tooLong) = big else {
            Issue.record("a 2 MiB body passed a 1 MiB limit")
            return
        }
        #expect(tooLong.message.contains("longer than 1048576 bytes"))
        let slow = await client.perform(CurlRequest(url: "\(base)/slow", timeout: 0.5))
        guard case .failure(let late) = slow else {
            Issue.record("a 5 s answer passed a 0.5 s timeout")
            return
        }
        #expect(late.code == 28)  // CURLE_OPERATION_TIMEDOUT
    }

    @Test func aClosedPortAndABadURLFailWithoutAnAnswer() async {
        let client = CurlClient()
        let port = TestTools.freeLoopbackPort()
        let closed = await client.perform(CurlRequest(url: "http://127.0.0.1:\(port)/push/x", method: "POST"))
        guard case .failure(let refused) = closed else {
            Issue.record("a closed port answered")
            return
        }
        #expect(refused.code == 7)  // CURLE_COULDNT_CONNECT
        let other = await client.perform(CurlRequest(url: "file:///etc/passwd"))
        guard case .failure(let protocolRefused) = other else {
            Issue.record("file:// was fetched")
            return
        }
        #expect(protocolRefused.code == 1)  // CURLE_UNSUPPORTED_PROTOCOL
    }
}
