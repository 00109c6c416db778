import Foundation
import HTTP
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@MainActor
@Suite("HTTPServer: real HTTP over loopback")
struct HTTPServerTests {
    /// A server answering `/hello` and echoing POST bodies; counts the requests it saw.
    final class Recorder {
        var requests: [HTTPRequest] = []
    }

    func makeServer(_ settings: HTTPServerSettings = HTTPServerSettings(), recorder: Recorder) throws -> HTTPServer {
        try HTTPServer(settings: settings) { request in
            recorder.requests.append(request)
            switch (request.method, request.path) {
            case ("GET", "/hello"):
                return .response(
                    HTTPResponse(status: 200, contentType: "text/plain", text: "hi \(request.query["name"] ?? "")"))
            case ("POST", "/echo"):
                return .response(HTTPResponse(status: 200, headers: [("X-Echo", "1")], body: request.body))
            default:
                return .response(.plain(404, "not found"))
            }
        }
    }

    @Test("a GET is answered with status, headers and body; an unknown path with 404")
    func getAndNotFound() async throws {
        let recorder = Recorder()
        let server = try makeServer(recorder: recorder)
        defer { server.stop() }
        let answer = try await RawHTTPClient.exchange(
            port: server.port, "GET /hello?name=x%20y HTTP/1.1\r\nHost: a\r\nX-Test: Yes\r\nConnection: close\r\n\r\n")
        #expect(statusCode(answer) == 200)
        #expect(answer.hasSuffix("hi x y"))
        #expect(answer.contains("Content-Length: 6"))
        #expect(recorder.requests.first?.header("x-test") == "Yes")
        let missing = try await RawHTTPClient.exchange(
            port: server.port, "GET /nothing HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        #expect(statusCode(missing) == 404)
    }

    @Test("a POST body reaches the handler; one over the limit is 413 and never does")
    func bodyLimit() async throws {
        let recorder = Recorder()
        let server = try makeServer(HTTPServerSettings(bodyLimit: 1000), recorder: recorder)
        defer { server.stop() }
        let small = String(repeating: "a", count: 1000)
        let answer = try await RawHTTPClient.exchange(
            port: server.port,
            "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 1000\r\nConnection: close\r\n\r\n\(small)")
        #expect(statusCode(answer) == 200)
        #expect(answer.hasSuffix(small))
        let big = String(repeating: "b", count: 5000)
        let refused = try await RawHTTPClient.exchange(
            port: server.port,
            "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 5000\r\nConnection: close\r\n\r\n\(big)")
        #expect(statusCode(refused) == 413)
        // Chunked, so the size is only known while it arrives.
        let chunk = String(repeating: "c", count: 800)
        let chunked = try await RawHTTPClient.exchange(
            port: server.port,
            "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                + "320\r\n\(chunk)\r\n320\r\n\(chunk)\r\n0\r\n\r\n")
        #expect(statusCode(chunked) == 413)
        #expect(recorder.requests.count == 1)
    }

    @Test("malformed request lines and oversized headers get 4xx, and the server goes on")
    func malformedAndHuge() async throws {
        let recorder = Recorder()
        let server = try makeServer(HTTPServerSettings(headerLimit: 8 * 1024), recorder: recorder)
        defer { server.stop() }
        // Not HTTP at all: closed without an answer.
        let garbage = try await RawHTTPClient.exchange(port: server.port, "GARBAGE\r\n\r\n")
        #expect(garbage.isEmpty)
        let noColon = try await RawHTTPClient.exchange(port: server.port, "GET /hello HTTP/1.1\r\nNoColon\r\n\r\n")
        #expect(statusCode(noColon) == 400)
        let version = try await RawHTTPClient.exchange(port: server.port, "GET /hello HTTP/7.1\r\nHost: a\r\n\r\n")
        #expect(statusCode(version) == 505)
        let huge = "GET /hello HTTP/1.1\r\nHost: a\r\nX-Big: \(String(repeating: "x", count: 64 * 1024))\r\n\r\n"
        let answer = try await RawHTTPClient.exchange(port: server.port, huge)
        #expect([413, 414, 431].contains(statusCode(answer) ?? 0), "\(answer.prefix(80))")
        let longURL = "GET /\(String(repeating: "p", count: 64 * 1024)) HTTP/1.1\r\nHost: a\r\n\r\n"
        let urlAnswer = try await RawHTTPClient.exchange(port: server.port, longURL)
        #expect([413, 414, 431].contains(statusCode(urlAnswer) ?? 0), "\(urlAnswer.prefix(80))")
        let fine = try await RawHTTPClient.exchange(
            port: server.port, "GET /hello HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        #expect(statusCode(fine) == 200)
        #expect(recorder.requests.count == 1)
    }

    @Test("a slowloris client trickling its headers is cut off; others are served meanwhile")
    func slowloris() async throws {
        let recorder = Recorder()
        let server = try makeServer(HTTPServerSettings(connectionTimeout: 1), recorder: recorder)
        defer { server.stop() }
        let port = server.port
        let slow = Task {
            await onOwnThread { () -> Bool in
                guard let client = try? RawHTTPClient(port: port, receiveTimeout: 30) else { return false }
                client.send("GET /hello HTTP/1.1\r\nHost: a\r\n")
                // One header byte every 2 s: slower than the 1 s idle timeout.
                for _ in 0..<10 {
                    usleep(2_000_000)
                    if !client.send("X") { return true }
                }
                return client.isClosedByPeer()
            }
        }
        let fine = try await RawHTTPClient.exchange(
            port: server.port, "GET /hello HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        #expect(statusCode(fine) == 200)
        #expect(await slow.value)
        #expect(recorder.requests.count == 1)
    }

    @Test("connections beyond the per-client limit are refused; freed slots serve again")
    func perClientLimit() async throws {
        let recorder = Recorder()
        // The idle timeout is far beyond the test's length: with the default 10 s, a held
        // connection that sat idle while two loaded cores ran the other suites was closed by
        // the server, its slot freed, and the extra connection served.
        let server = try makeServer(
            HTTPServerSettings(perClientLimit: 4, connectionTimeout: 600), recorder: recorder)
        defer { server.stop() }
        let port = server.port
        var held: [RawHTTPClient] = []
        for _ in 0..<4 { held.append(try RawHTTPClient(port: port, receiveTimeout: 10)) }
        // Four kept-alive connections, each with a request answered: the server holds all four.
        for client in held { client.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n") }
        #expect(await eventually(timeout: .seconds(30)) { recorder.requests.count == 4 })
        let extraClosed = await onOwnThread { () -> Bool in
            guard let extra = try? RawHTTPClient(port: port, receiveTimeout: 10) else { return true }
            extra.send("GET /hello HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
            let answer = extra.readAll()
            return statusCode(answer) != 200
        }
        #expect(extraClosed)
        #expect(recorder.requests.count == 4)
        held.removeAll()
        // The slots free once the server has seen the four close.
        var served = false
        for _ in 0..<100 where !served {
            let answer = try? await RawHTTPClient.exchange(
                port: port, "GET /hello HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
            served = answer.flatMap(statusCode) == 200
            if !served { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(served)
    }

    /// Issue #29 (6): idle or half-open connections from a few addresses, each under the
    /// per-client limit, must not lock a new client out (an arbiter's browser): the last
    /// slots are kept for addresses that hold few connections.
    @Test("the last slots are kept for clients holding few connections")
    func reservedSlotsServeANewClient() async throws {
        let recorder = Recorder()
        var settings = HTTPServerSettings(connectionLimit: 16, perClientLimit: 16, connectionTimeout: 600)
        settings.reservedConnections = 6
        let server = try makeServer(settings, recorder: recorder)
        defer { server.stop() }
        let port = server.port
        // Sixteen connections from 127.0.0.2 that never send a request (half-open).
        var idle: [RawHTTPClient] = []
        for _ in 0..<16 { idle.append(try RawHTTPClient(port: port, receiveTimeout: 10, source: "127.0.0.2")) }
        // A new client (127.0.0.3) is served at once (without the reserve it waits for the
        // idle timeout, here 600 s: each try gives up after 2 s).
        var served = false
        for _ in 0..<5 where !served {
            let answer = try? await RawHTTPClient.exchange(
                port: port, "GET /hello HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", source: "127.0.0.3",
                receiveTimeout: 2)
            served = answer.flatMap(statusCode) == 200
            if !served { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(served)
        idle.removeAll()
    }

    @Test("an event stream delivers events sent later, and closes when a client falls too far behind")
    func eventStream() async throws {
        var streams: [HTTPEventStream] = []
        var closed = 0
        let server = try HTTPServer(settings: HTTPServerSettings()) { _ in
            let stream = HTTPEventStream(pendingLimit: 256 * 1024)
            stream.onClose = { closed += 1 }
            streams.append(stream)
            stream.send(event: "hello", id: "1", data: "{\"a\":1}")
            return .eventStream(stream)
        }
        defer { server.stop() }
        let port = server.port
        let greeted = Flag()
        let reader = Task {
            await onOwnThread { () -> String in
                guard let client = try? RawHTTPClient(port: port, receiveTimeout: 20) else { return "" }
                client.send("GET /events HTTP/1.1\r\nHost: a\r\n\r\n")
                let first = client.read(until: "event: hello\nid: 1\ndata: {\"a\":1}\n\n")
                greeted.set()
                return first + client.read(until: "second\nid: 2")
            }
        }
        #expect(await eventually { streams.count == 1 })
        // The first event has reached the client: the second is sent later, on an open stream.
        #expect(await eventually(timeout: .seconds(30)) { greeted.isSet })
        streams[0].send(event: "second", id: "2", data: "x\ny")
        let text = await reader.value
        #expect(text.contains("text/event-stream"))
        #expect(text.contains("event: hello\nid: 1\ndata: {\"a\":1}\n\n"))
        #expect(text.contains("event: second\nid: 2"))
        // The reader is gone; the server notices when writing fails, or the limit ends it.
        let big = String(repeating: "z", count: 64 * 1024)
        for _ in 0..<64 where !streams[0].isClosed {
            streams[0].send(data: big)
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(await eventually { closed == 1 })
        #expect(streams[0].pendingCount <= 256 * 1024)
    }

    @Test("HTTPS with a PEM certificate and key (GnuTLS): curl gets the page; plain HTTP gets nothing")
    func tls() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("http-tls-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = folder.appendingPathComponent("key.pem").path
        let certificate = folder.appendingPathComponent("cert.pem").path
        let made = try await Self.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-days", "1", "-keyout",
                key, "-out", certificate,
            ])
        #expect(made.status == 0)
        let recorder = Recorder()
        let server = try makeServer(
            HTTPServerSettings(
                tls: .init(
                    certificatePEM: try String(contentsOfFile: certificate, encoding: .utf8),
                    keyPEM: try String(contentsOfFile: key, encoding: .utf8))),
            recorder: recorder)
        defer { server.stop() }
        let answer = try await Self.run(
            "/usr/bin/curl",
            ["-sS", "--max-time", "10", "--cacert", certificate, "https://127.0.0.1:\(server.port)/hello?name=tls"])
        #expect(answer.status == 0, "\(answer.output)")
        #expect(answer.output == "hi tls")
        let plain = try await RawHTTPClient.exchange(
            port: server.port, "GET /hello HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        #expect(statusCode(plain) != 200)
        #expect(recorder.requests.count == 1)
    }

    /// Runs a tool on a thread of its own; its exit status and standard output.
    static func run(_ tool: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await onOwnThread { () throws -> (status: Int32, output: String) in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = arguments
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }
    }

    @Test("an address that is not an IP address is refused with a clear error")
    func badAddress() {
        #expect(throws: HTTPServerError.cannotListen(address: "example", port: 0)) {
            try HTTPServer(settings: HTTPServerSettings(address: "example")) { _ in .response(.plain(200, "")) }
        }
    }
}
