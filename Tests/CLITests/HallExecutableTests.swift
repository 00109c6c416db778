import BridgeCLI
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `boardbridge hall` runs the hall's own executable, `boardbridge-hall`, so the daemon never
/// links libmicrohttpd (and its GnuTLS) or libcurl (README, memory goal).
@Suite struct HallExecutableTests {
    @Test func theHallIsLookedForBesideTheBinaryThenInLibexec() {
        #expect(
            HallExecutable.candidates(besides: "/usr/bin/boardbridge") == [
                "/usr/bin/boardbridge-hall", "/usr/libexec/boardbridge/boardbridge-hall",
            ])
        #expect(
            HallExecutable.candidates(besides: "/work/.build/debug/boardbridge") == [
                "/work/.build/debug/boardbridge-hall", "/work/.build/libexec/boardbridge/boardbridge-hall",
            ])
        #expect(
            HallExecutable.candidates(besides: "/boardbridge") == [
                "/boardbridge-hall", "/libexec/boardbridge/boardbridge-hall",
            ])
        #expect(
            HallExecutable.locate(
                besides: "/usr/bin/boardbridge", isExecutable: { $0 == "/usr/libexec/boardbridge/boardbridge-hall" })
                == "/usr/libexec/boardbridge/boardbridge-hall")
        #expect(
            HallExecutable.locate(besides: "/usr/bin/boardbridge", isExecutable: { _ in true })
                == "/usr/bin/boardbridge-hall")
        #expect(HallExecutable.locate(besides: "/usr/bin/boardbridge", isExecutable: { _ in false }) == nil)
    }

    /// The defect: the daemon's binary needed libmicrohttpd and libcurl (and through them
    /// GnuTLS, Kerberos, LDAP, …), mapped and initialised in every `boardbridge run`.
    @Test(.enabled(if: TestTools.available("ldd")))
    func onlyTheHallLinksTheWebServerAndThePushLibraries() async throws {
        let daemon = try await libraries(of: try TestTools.product("boardbridge"))
        for library in ["libmicrohttpd", "libcurl", "libgnutls"] {
            #expect(!daemon.contains(library), "boardbridge needs \(library)")
        }
        let hall = try await libraries(of: try TestTools.product(HallExecutable.name))
        for library in ["libmicrohttpd", "libcurl"] {
            #expect(hall.contains(library), "boardbridge-hall does not need \(library)")
        }
    }

    /// `boardbridge hall` becomes `boardbridge-hall` (same PID, same argv) and serves.
    @Test(.enabled(if: TestTools.available("mosquitto")))
    func boardbridgeHallServesFromTheHallExecutable() async throws {
        let broker = try MosquittoBroker()
        try await broker.start()
        defer { broker.stop() }
        let folder = try TestTools.temporaryDirectory("hall-exec")
        defer { try? FileManager.default.removeItem(at: folder) }
        let port = TestTools.freeLoopbackPort()
        let config = folder.appendingPathComponent("hall.yaml")
        try "mqtt:\n  url: \(broker.url)\nhall:\n  port: \(port)\n  audit_file: \(folder.path)/audit.jsonl\n".write(
            to: config, atomically: true, encoding: .utf8)
        let boardbridge = try TestTools.product("boardbridge")
        let hall = ManagedProcess(executable: boardbridge, arguments: ["hall", "--config", config.path])
        try hall.start()
        defer { hall.stop() }
        #expect(await hall.output(containing: "hall listening", within: .seconds(20)), "\(hall.output)")
        #expect(TestTools.acceptsConnections(port: port))
        let image = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(hall.pid)/exe")
        #expect(image == (try TestTools.product(HallExecutable.name)))
        let argv = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(hall.pid)/cmdline"))
            .split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        #expect(argv == [boardbridge, "hall", "--config", config.path])
        #expect(await hall.terminate() == 0)
    }

    @Test func hallWithABadConfigurationExits78() async throws {
        let outcome = try await run(
            try TestTools.product("boardbridge"), ["hall", "--config", "/nonexistent/hall.yaml"])
        #expect(outcome.status == 78)
        #expect(outcome.error.contains("/nonexistent/hall.yaml"))
    }

    /// A `boardbridge` without its hall executable says where it looked, exit 70.
    @Test func aMissingHallExecutableIsNamed() async throws {
        let folder = try TestTools.temporaryDirectory("hall-missing")
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("boardbridge").path
        // Copied by `cp`, not in this process: a descriptor open for writing here would be
        // inherited by a child another test spawns meanwhile, and exec would fail (ETXTBSY).
        let cp = ManagedProcess(
            executable: try TestTools.require("cp"), arguments: [try TestTools.product("boardbridge"), copy])
        try cp.start()
        #expect(await cp.exitStatus(within: .seconds(30)) == 0)
        let outcome = try await run(copy, ["hall", "--config", "/nonexistent/hall.yaml"])
        #expect(outcome.status == 70)
        let resolved = folder.resolvingSymlinksInPath()
        #expect(outcome.error.hasPrefix("boardbridge: cannot start the hall: boardbridge-hall is not installed"))
        #expect(outcome.error.contains("\(resolved.path)/boardbridge-hall or "))
        #expect(
            outcome.error.contains("\(resolved.deletingLastPathComponent().path)/libexec/boardbridge/boardbridge-hall"))
    }

    /// The hall executable refuses the daemon's commands.
    @Test func theHallExecutableServesOnlyHall() async throws {
        let outcome = try await run(try TestTools.product(HallExecutable.name), ["run", "--config", shippedConfig])
        #expect(outcome.status == 64)
        #expect(outcome.error.contains(#"serves only "boardbridge hall""#))
    }

    struct Outcome {
        let status: Int32
        let error: String
    }

    /// Runs `executable` to completion (one-shot commands only), stderr captured.
    private func run(_ executable: String, _ arguments: [String]) async throws -> Outcome {
        let process = ManagedProcess(executable: executable, arguments: arguments)
        try process.start()
        var status = await process.exitStatus(within: .seconds(30))
        if status == nil { status = await process.terminate() }
        return Outcome(status: status ?? 0, error: process.output)
    }

    /// The shared libraries `ldd` lists for `binary`, one line each.
    private func libraries(of binary: String) async throws -> String {
        let process = ManagedProcess(executable: try TestTools.require("ldd"), arguments: [binary])
        try process.start()
        #expect(await process.exitStatus(within: .seconds(30)) == 0)
        return process.output
    }
}
