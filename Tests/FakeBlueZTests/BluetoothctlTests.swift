import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A real BlueZ client, Debian's `bluetoothctl`, against `boardsim` on a private bus
/// (`DBUS_SYSTEM_BUS_ADDRESS`): it lists, connects to and reads simulated boards unchanged.
@Suite(.enabled(if: TestTools.available("dbus-daemon", "bluetoothctl")), .serialized)
@MainActor
struct BluetoothctlTests {
    /// One interactive `bluetoothctl`, fed commands on stdin with pauses, output in a file,
    /// stopped by PID.
    @MainActor
    final class Session {
        let process = Process()
        let input = Pipe()
        let logURL: URL

        init(busAddress: String) throws {
            let executable = try TestTools.require("bluetoothctl")
            logURL = FileManager.default.temporaryDirectory.appendingPathComponent(
                "bluetoothctl-\(UUID().uuidString.prefix(8)).log")
            _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
            let log = try FileHandle(forWritingTo: logURL)
            process.executableURL = URL(fileURLWithPath: executable)
            var environment = ProcessInfo.processInfo.environment
            environment["DBUS_SYSTEM_BUS_ADDRESS"] = busAddress
            process.environment = environment
            process.standardInput = input
            process.standardOutput = log
            process.standardError = log
            try process.run()
        }

        /// Sends a command line.
        func send(_ line: String) {
            input.fileHandleForWriting.write(Data((line + "\n").utf8))
        }

        /// The output so far, without colours and prompts' control characters.
        var output: String {
            let raw = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
            let withoutEscapes = raw.replacingOccurrences(
                of: "\u{1B}\\[[0-9;]*[A-Za-z]", with: "", options: .regularExpression)
            return withoutEscapes.filter { $0 != "\u{01}" && $0 != "\u{02}" && $0 != "\r" }
        }

        /// Waits until the output contains `text`.
        func waitFor(_ text: String, timeout: Duration = .seconds(15)) async -> Bool {
            await eventually(timeout: timeout) { self.output.contains(text) }
        }

        /// Quits and waits; kills by PID if it does not exit.
        func finish() {
            if process.isRunning {
                send("quit")
                try? input.fileHandleForWriting.close()
                let deadline = Date().addingTimeInterval(5)
                while process.isRunning && Date() < deadline { usleep(10_000) }
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            }
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: logURL)
        }
    }

    @Test func bluetoothctlScansConnectsAndReads() async throws {
        let daemon = try await PrivateDBusDaemon()
        defer { daemon.stop() }
        let simulator = try await BoardSimulator(
            busAddress: daemon.address,
            arguments: ["--board", "family=chessnut,name=Chessnut Air,address=AA:BB:CC:00:00:01,rssi=-50"])
        defer { simulator.stop() }
        let session = try Session(busAddress: daemon.address)
        defer { session.finish() }

        session.send("scan on")
        #expect(await session.waitFor("Device AA:BB:CC:00:00:01 Chessnut Air"), "\(session.output)")
        session.send("scan off")
        #expect(await session.waitFor("Discovering: no"), "\(session.output)")
        session.send("devices")
        #expect(await session.waitFor("Device AA:BB:CC:00:00:01 Chessnut Air\n"), "\(session.output)")
        session.send("connect AA:BB:CC:00:00:01")
        #expect(await session.waitFor("Connection successful"), "\(session.output)")
        #expect(await session.waitFor("ServicesResolved: yes"), "\(session.output)")
        #expect(session.output.contains("/org/bluez/hci0/dev_AA_BB_CC_00_00_01/service000f/char0010"))
        session.send("menu gatt")
        session.send("select-attribute 00002a29-0000-1000-8000-00805f9b34fb")
        session.send("read")
        #expect(await session.waitFor("43 68 65 73 73 6e 75 74"), "\(session.output)")  // "Chessnut"
        session.send("select-attribute /org/bluez/hci0/dev_AA_BB_CC_00_00_01/service0013/char0016")
        session.send("notify on")
        #expect(await session.waitFor("Notifying: yes"), "\(session.output)")
        session.send("select-attribute /org/bluez/hci0/dev_AA_BB_CC_00_00_01/service0013/char0014")
        session.send("write \"0x21 0x01 0x00\"")
        var writes: [String] = []
        for _ in 0..<200 where writes.isEmpty {
            try await Task.sleep(for: .milliseconds(50))
            writes = try await simulator.ctl("writes", "AA:BB:CC:00:00:01").lines
        }
        #expect(writes.count == 1 && writes.first?.contains("\"hex\":\"210100\"") == true, "\(writes)")
        // bluetoothctl prints changes of the selected attribute only: show the ack's
        // characteristic, whose cached Value came with the notification. First boardsim
        // has sent the ack (char0016 is the only subscribed characteristic)…
        var sent = 0
        for _ in 0..<200 where sent == 0 {
            try await Task.sleep(for: .milliseconds(50))
            let violations = try await simulator.ctl("violations", "AA:BB:CC:00:00:01").standardOutput
            let counters = try? JSONSerialization.jsonObject(with: Data(violations.utf8)) as? [String: Any]
            sent = counters?["notificationsSent"] as? Int ?? 0
        }
        #expect(sent > 0, "the ack never went out")
        // …then bluetoothctl has taken it in: boardsim answers a read after the ack, and
        // bluetoothctl handles its messages in order, so once it prints the read's value it
        // has the ack's Value in its cache.
        let manufacturerName = "43 68 65 73 73 6e 75 74"  // "Chessnut"
        let reads = session.output.components(separatedBy: manufacturerName).count
        session.send("select-attribute 00002a29-0000-1000-8000-00805f9b34fb")
        session.send("read")
        #expect(
            await eventually(timeout: .seconds(15)) {
                session.output.components(separatedBy: manufacturerName).count > reads
            }, "\(session.output)")
        session.send("select-attribute /org/bluez/hci0/dev_AA_BB_CC_00_00_01/service0013/char0016")
        session.send("attribute-info")
        #expect(await session.waitFor("23 01 00"), "\(session.output)")  // the board's ack
        #expect(session.output.contains("MTU: 0x00b9"))
        session.send("back")
        session.send("disconnect AA:BB:CC:00:00:01")
        #expect(await session.waitFor("Connected: no"), "\(session.output)")

    }
}
