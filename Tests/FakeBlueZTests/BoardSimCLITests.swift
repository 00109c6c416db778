import BoardKit
import DBus
import FakeBlueZ
import Foundation
import TestSupport
import Testing

/// The `boardsim` binary and `boardsim ctl`, end to end through a private bus.
@Suite(.enabled(if: TestTools.available("dbus-daemon")), .serialized)
@MainActor
struct BoardSimCLITests {
    static let air = "family=chessnut,name=Chessnut Air,address=AA:BB:CC:00:00:01,id=air,rssi=-50"
    static let pegasus = "family=pegasus,address=AA:BB:CC:00:00:02,id=peg,known=true"
    static let start = BoardSnapshot.startingPosition.fenPlacement

    /// A private bus, the binary and a client connection.
    @MainActor
    final class Fixture {
        let daemon: PrivateDBusDaemon
        let simulator: BoardSimulator
        let client: DBusConnection

        init(arguments: [String] = ["--board", air, "--board", pegasus], configFile: URL? = nil) async throws {
            daemon = try await PrivateDBusDaemon()
            do {
                simulator = try await BoardSimulator(
                    busAddress: daemon.address, configFile: configFile, arguments: arguments)
            } catch {
                daemon.stop()
                throw error
            }
            do {
                client = try await DBusConnection(address: daemon.address)
            } catch {
                simulator.stop()
                daemon.stop()
                throw error
            }
        }

        func close() {
            client.close()
            simulator.stop()
            daemon.stop()
        }

        /// Runs a ctl command that must succeed; returns its output lines.
        func ctl(_ arguments: String...) async throws -> [String] {
            let result = try await simulator.ctl(arguments)
            #expect(result.status == 0, "ctl \(arguments): \(result)")
            return result.lines
        }

        /// The `ctl list` line of `id`, decoded.
        func listed(_ id: String) async throws -> [String: Any] {
            for line in try await ctl("list") {
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                if object?["Id"] as? String == id || object?["Name"] as? String == id, let object { return object }
            }
            Issue.record("\(id) not listed")
            return [:]
        }

        func call(
            _ path: String, _ interface: String, _ member: String, _ body: [DBusValue] = []
        ) async throws
            -> [DBusValue]
        {
            try await client.call(
                destination: "org.bluez", path: path, interface: interface, member: member, body: body)
        }
    }

    @Test func listShowsAdaptersAndBoards() async throws {
        let fixture = try await Fixture()
        defer { fixture.close() }
        let lines = try await fixture.ctl("list")
        #expect(lines.count == 3)
        let adapter = try await fixture.listed("hci0")
        #expect(adapter["Kind"] as? String == "adapter")
        #expect(adapter["Powered"] as? Bool == true)
        let air = try await fixture.listed("air")
        #expect(air["Kind"] as? String == "board")
        #expect(air["Family"] as? String == "chessnut")
        #expect(air["Address"] as? String == "AA:BB:CC:00:00:01")
        #expect(air["RSSI"] as? Int == -50)
        #expect(air["Exported"] as? Bool == false)
        #expect(try await fixture.listed("peg")["Exported"] as? Bool == true)
    }

    /// A board behind a pseudo-terminal is listed with the stable name of its line (which is
    /// no D-Bus object path: listing it as one failed the whole `list`).
    @Test func listShowsASerialBoardsLine() async throws {
        let link = FileManager.default.temporaryDirectory.appendingPathComponent("boardsim-list-\(UUID())").path
        let fixture = try await Fixture(arguments: [
            "--board", Self.air, "--board", "family=certabo,address=AA:BB:CC:00:00:03,id=cert,leds=rgb,link=\(link)",
        ])
        defer { fixture.close() }
        let certabo = try await fixture.listed("cert")
        #expect(certabo["Link"] as? String == link)
        #expect(certabo["Family"] as? String == "certabo")
        #expect((certabo["Path"] as? String)?.hasPrefix("/org/bluez/") == true)
        #expect(try await fixture.listed("air")["Link"] == nil)
    }

    @Test func physicalVerbsChangeTheBoard() async throws {
        let fixture = try await Fixture()
        defer { fixture.close() }
        #expect(try await fixture.ctl("board", "air") == [Self.start])
        _ = try await fixture.ctl("play", "air", "e2e4", "e7e5", "g1f3", "--pace", "0.05")
        #expect(try await fixture.ctl("board", "air") == ["rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R"])
        let position = try await fixture.ctl("position", "Chessnut Air")
        #expect(position.first?.hasPrefix("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq") == true)
        let illegal = try await fixture.simulator.ctl("play", "air", "e2e4")
        #expect(illegal.status == 1)
        #expect(illegal.standardError.contains("IllegalMove"))
        _ = try await fixture.ctl("lift", "air", "f3")
        _ = try await fixture.ctl("place", "air", "g5", "N")
        _ = try await fixture.ctl("knock", "air", "a2")
        #expect(try await fixture.ctl("board", "air") == ["rnbqkbnr/pppp1ppp/8/4p1N1/4P3/8/1PPP1PPP/RNBQKB1R"])
        _ = try await fixture.ctl("reset", "air")
        #expect(try await fixture.ctl("board", "air") == [Self.start])
        _ = try await fixture.ctl("battery", "air", "42", "--charging")
        let air = try await fixture.listed("air")
        #expect(air["Battery"] as? Int == 42)
        #expect(air["Charging"] as? Bool == true)
        _ = try await fixture.ctl("button", "air", "new_game")
        _ = try await fixture.ctl("lose", "air", "0")
        #expect(try await fixture.simulator.ctl("lose", "air", "many").status != 0)
        #expect(try await fixture.simulator.ctl("lose", "air", "1001").standardError.contains("count"))
        _ = try await fixture.ctl("rssi", "air", "-40")
        #expect(try await fixture.listed("air")["RSSI"] as? Int == -40)
    }

    @Test func linkVerbsAndWriteLog() async throws {
        let fixture = try await Fixture()
        defer { fixture.close() }
        let device = SimFixture.devicePath("AA:BB:CC:00:00:02")
        _ = try await fixture.ctl("fail-connects", "peg", "1", "--error", "abort")
        await #expect(throws: DBusError(name: "org.bluez.Error.Failed", message: "le-connection-abort-by-local")) {
            _ = try await fixture.call(device, "org.bluez.Device1", "Connect")
        }
        _ = try await fixture.call(device, "org.bluez.Device1", "Connect")
        #expect(try await fixture.listed("peg")["Connected"] as? Bool == true)
        // The two attempts as the radio timed them: the aborted one without discovery.
        let radio = try await fixture.ctl("radio-times").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
        }
        #expect(radio.map { $0["sequence"] as? Int } == [1, 2], "\(radio)")
        #expect(
            radio.allSatisfy { $0["adapter"] as? String == "hci0" && $0["address"] as? String == "AA:BB:CC:00:00:02" })
        #expect(radio.allSatisfy { ($0["connect"] as? Double ?? -1) >= 0 }, "\(radio)")
        #expect(radio.map { $0["discovery"] != nil } == [false, true], "\(radio)")
        #expect(try await fixture.ctl("radio-times", "1").count == 1)
        // Write something once the services are resolved; the log shows it.
        var resolved = false
        for _ in 0..<500 where !resolved {
            resolved =
                (try? await fixture.client.property(
                    "ServicesResolved", interface: "org.bluez.Device1", path: device, destination: "org.bluez"))
                == .bool(true)
            if !resolved { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(resolved)
        _ = try await fixture.call(
            device + "/service000f/char0013", "org.bluez.GattCharacteristic1", "WriteValue",
            [.bytes([0x42]), .propertyDictionary(["type": .string("command")])])
        let writes = try await fixture.ctl("writes", "peg", "--clear")
        #expect(writes.count == 1)
        let record = try JSONSerialization.jsonObject(with: Data((writes.first ?? "").utf8)) as? [String: Any]
        #expect(record?["hex"] as? String == "42")
        #expect(record?["type"] as? String == "command")
        #expect(record?["characteristic"] as? String == "6e400002-b5a3-f393-e0a9-e50e24dcca9e")
        #expect(try await fixture.ctl("writes", "peg").isEmpty)
        let violations = try await fixture.ctl("violations", "peg")
        let counters = try JSONSerialization.jsonObject(with: Data((violations.first ?? "").utf8)) as? [String: Any]
        #expect(counters?["total"] as? Int != nil)
        _ = try await fixture.ctl("drop", "peg", "--reason", "timeout")
        #expect(try await fixture.listed("peg")["Connected"] as? Bool == false)
        _ = try await fixture.ctl("power", "hci0", "off")
        #expect(try await fixture.listed("hci0")["Powered"] as? Bool == false)
        _ = try await fixture.ctl("power", "hci0", "on")
        _ = try await fixture.ctl("present", "peg", "off")
        #expect(try await fixture.listed("peg")["Present"] as? Bool == false)
    }

    @Test func boardsComeAndGoAndAutoplay() async throws {
        let fixture = try await Fixture()
        defer { fixture.close() }
        #expect(try await fixture.ctl("add-board", "family=millennium,address=AA:BB:CC:00:00:09,id=mil") == ["mil"])
        #expect(try await fixture.listed("mil")["Family"] as? String == "millennium")
        _ = try await fixture.ctl("autoplay", "mil", "0.02")
        #expect(try await fixture.listed("mil")["Playing"] as? Bool == true)
        var changed = false
        for _ in 0..<200 where !changed {
            try await Task.sleep(for: .milliseconds(20))
            changed = try await fixture.ctl("board", "mil") != [Self.start]
        }
        #expect(changed)
        let busy = try await fixture.simulator.ctl("play", "mil", "e2e4")
        #expect(busy.status == 1 && busy.standardError.contains("Busy"))
        _ = try await fixture.ctl("autoplay", "mil", "off")
        #expect(try await fixture.listed("mil")["Playing"] as? Bool == false)
        _ = try await fixture.ctl("remove-board", "mil")
        #expect(try await fixture.ctl("list").count == 3)
    }

    @Test func badRequestsExitNonZero() async throws {
        let fixture = try await Fixture()
        defer { fixture.close() }
        #expect(try await fixture.simulator.ctl("fly").status == 2)
        #expect(try await fixture.simulator.ctl("lift", "air").status == 2)
        let missing = try await fixture.simulator.ctl("board", "ghost")
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("no board 'ghost'"))
        #expect(try await fixture.simulator.ctl("place", "air", "e9", "Q").status == 1)
        #expect(try await fixture.simulator.ctl("place", "air", "e4", "X").status == 1)
    }

    @Test func configFileSecondInstanceAndCleanStop() async throws {
        let directory = try TestTools.temporaryDirectory("boardsim-config")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("sim.json")
        try """
        {"adapters": [{"name": "hci0"}, {"name": "hci1"}],
         "boards": [{"family": "squareoff", "name": "Square Off Neo", "address": "AA:BB:CC:00:00:05", "adapter": "hci1"}],
         "behavior": {"bluezVersion": "5.66"}}
        """.write(to: file, atomically: true, encoding: .utf8)
        let fixture = try await Fixture(arguments: [], configFile: file)
        defer { fixture.close() }
        let neo = try await fixture.listed("Square Off Neo")
        #expect(neo["Adapter"] as? String == "hci1")
        #expect(try await fixture.ctl("list").count == 3)

        let second = ManagedProcess(
            executable: fixture.simulator.executable, arguments: ["--bus", fixture.daemon.address])
        try second.start()
        let status = await second.exitStatus(within: .seconds(20))
        if status == nil { await second.terminate(grace: .seconds(1)) }
        #expect(status == 1)
        #expect(second.output.contains("owned by another connection"))

        #expect(await fixture.simulator.terminate() == 0)
        #expect(fixture.simulator.output.contains("boardsim: stopped"))
    }
}
