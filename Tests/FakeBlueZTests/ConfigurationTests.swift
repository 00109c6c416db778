import BoardKit
import Chess
import Emulation
import FakeBlueZ
import Foundation
import Testing

/// Board specifications, JSON configuration and the command line.
@Suite struct ConfigurationTests {
    @Test func boardSpecificationParsesEveryKey() throws {
        let board = try BoardConfiguration(
            specification:
                "family=chessnut,name=Chessnut Air,address=aa-bb-cc-00-00-01,adapter=hci1,rssi=-50,flipped=true,"
                + "mtu=23,known=yes,present=off,battery=42,charging=1,txpower=4,id=air,type=random,autoplay=2.5,retransmit=2,"
                + "manufacturer=0x04b8:0102;76:ff,servicedata=180f:64,uuids=180a;6e400001-b5a3-f393-e0a9-e50e24dcca9e")
        #expect(board.family == .chessnut)
        #expect(board.name == "Chessnut Air")
        #expect(board.address == "AA:BB:CC:00:00:01")
        #expect(board.adapter == "hci1")
        #expect(board.rssi == -50)
        #expect(board.flipped)
        #expect(board.mtu == 23)
        #expect(board.known)
        #expect(!board.present)
        #expect(board.battery == 42)
        #expect(board.charging)
        #expect(board.txPower == 4)
        #expect(board.id == "air")
        #expect(board.addressType == "random")
        #expect(board.autoplay == 2.5)
        #expect(board.retransmit == 2)
        #expect(board.manufacturerData == ["0x04b8": "0102", "76": "ff"])
        #expect(board.serviceData == ["180f": "64"])
        #expect(board.serviceUUIDs?.count == 2)
    }

    /// A Certabo or Sentio board with RGB LEDs: its frames carry `D`, and it takes RGB writes.
    @Test func aCertaboOrSentioBoardCanHaveRGBLEDs() throws {
        for family in ["certabo", "sentio"] {
            let board = try BoardConfiguration(specification: "family=\(family),address=AA:BB:CC:00:00:01,leds=RGB")
            #expect(board.leds == "rgb")
            let classic = try BoardConfiguration(specification: "family=\(family),address=AA:BB:CC:00:00:01")
            for (configuration, marker) in [(board, "D"), (classic, "L")] {
                var personality = PersonalityFactory.makePersonality(
                    family: configuration.family, name: "board", rgbLEDs: configuration.leds == "rgb")
                let frame = personality.tick(at: 0).first.map { String(decoding: $0, as: UTF8.self) }
                #expect(frame?.hasSuffix(marker + "\r\n") == true, "\(family): \(frame ?? "no frame")")
            }
        }
    }

    @Test func boardSpecificationDefaults() throws {
        let board = try BoardConfiguration(specification: "family=millennium,address=AA:BB:CC:00:00:09")
        #expect(board.effectiveName == "MILLENNIUM CHESS")
        #expect(board.effectiveMTU == 160)
        #expect(board.effectiveID == "AA:BB:CC:00:00:09")
        #expect(board.adapter == "hci0")
        #expect(board.present)
        #expect(!board.known)
    }

    @Test(arguments: [
        (
            "address=AA:BB:CC:00:00:01",
            FakeBlueZError.invalidConfiguration("board specification without family: address=AA:BB:CC:00:00:01")
        ),
        ("family=dgt,address=AA:BB:CC:00:00:01,transport=ble", .invalidValue(key: "transport", value: "ble")),
        ("family=chessnut,address=AA:BB:CC:00:00:01,transport=pty", .invalidValue(key: "transport", value: "pty")),
        ("family=dgt,address=AA:BB:CC:00:00:01,link=tty0", .invalidValue(key: "link", value: "tty0")),
        (
            "family=dgt,address=AA:BB:CC:00:00:01,transport=rfcomm,link=/tmp/x",
            .invalidValue(key: "link", value: "/tmp/x")
        ),
        ("family=chessnut,address=AA:BB:CC:00:00:01,leds=rgb", .invalidValue(key: "leds", value: "rgb")),
        ("family=certabo,address=AA:BB:CC:00:00:01,leds=neon", .invalidValue(key: "leds", value: "neon")),
        ("family=cpp,address=AA:BB:CC:00:00:01,dialect=2023", .invalidValue(key: "dialect", value: "2023")),
        ("family=chessnut,address=AA:BB:CC:00:00:01,dialect=2024", .invalidValue(key: "dialect", value: "2024")),
        ("family=chessnut,address=AA:BB:CC:00:01", .invalidValue(key: "address", value: "AA:BB:CC:00:01")),
        ("family=chessnut,address=AA:BB:CC:00:00:01,rssi=loud", .invalidValue(key: "rssi", value: "loud")),
        ("family=chessnut,address=AA:BB:CC:00:00:01,rssi=-200", .invalidValue(key: "rssi", value: "-200")),
        ("family=chessnut,address=AA:BB:CC:00:00:01,mtu=10", .invalidValue(key: "mtu", value: "10")),
        ("family=chessup,address=AA:BB:CC:00:00:01,retransmit=0", .invalidValue(key: "retransmit", value: "0.0")),
        ("family=chessnut,address=AA:BB:CC:00:00:01,colour=red", .invalidConfiguration("unknown board key 'colour'")),
        ("family=chessnut,address=AA:BB:CC:00:00:01,adapter=wlan0", .invalidValue(key: "adapter", value: "wlan0")),
        ("family=chessnut,address=AA:BB:CC:00:00:01,fen=xyz", .invalidValue(key: "fen", value: "xyz")),
        ("family=chessnut,address=AA:BB:CC:00:00:01,battery=101", .invalidValue(key: "battery", value: "101")),
        ("family=chessnut,address=AA:BB:CC:00:00:01,family=pegasus", .invalidConfiguration("key 'family' given twice")),
        ("family=chessnut,address=AA:BB:CC:00:00:01,name", .invalidConfiguration("'name' is not key=value")),
    ])
    func invalidBoardSpecificationsNameTheProblem(_ specification: String, _ expected: FakeBlueZError) {
        #expect(throws: expected) { try BoardConfiguration(specification: specification) }
    }

    @Test func adapterSpecifications() throws {
        #expect(try AdapterConfiguration(specification: "hci2").name == "hci2")
        let adapter = try AdapterConfiguration(specification: "name=hci1,address=00:11:22:33:44:55,powered=false")
        #expect(adapter.name == "hci1")
        #expect(adapter.address == "00:11:22:33:44:55")
        #expect(!adapter.powered)
        #expect(throws: FakeBlueZError.invalidValue(key: "adapter", value: "bt0")) {
            try AdapterConfiguration(specification: "bt0")
        }
    }

    @Test func jsonConfigurationWithDefaults() throws {
        let json = """
            {"adapters": [{"name": "hci0"}, {"name": "hci1", "powered": false}],
             "boards": [{"family": "squareoff", "address": "AA:BB:CC:00:00:03", "adapter": "hci1", "rssi": -70}],
             "behavior": {"bluezVersion": "5.61", "gattCache": false}}
            """
        let configuration = try FakeBlueZConfiguration(json: Data(json.utf8))
        #expect(configuration.adapters.map(\.name) == ["hci0", "hci1"])
        #expect(configuration.adapters[1].powered == false)
        #expect(configuration.boards.first?.family == .squareOff)
        #expect(configuration.boards.first?.rssi == -70)
        #expect(configuration.boards.first?.effectiveName == "Squareoff Pro")
        #expect(configuration.behavior.bluezVersion == "5.61")
        #expect(configuration.behavior.gattCache == false)
        #expect(configuration.behavior.disconnectDelay == BehaviorConfiguration().disconnectDelay)
    }

    @Test func jsonConfigurationErrorsNameTheKey() {
        let json = #"{"boards": [{"family": "chessnut"}]}"#
        #expect {
            try FakeBlueZConfiguration(json: Data(json.utf8))
        } throws: { error in
            guard case FakeBlueZError.invalidConfiguration(let message) = error else { return false }
            return message.contains("address")
        }
    }

    @Test func runCommandLine() throws {
        let command = try BoardSimArguments.parse(
            [
                "--board", "family=chessnut,address=AA:BB:CC:00:00:01,adapter=hci1", "--adapter", "hci0",
                "--autoplay", "3", "--bluez-version", "5.66", "--no-cache", "--quiet",
            ],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/tmp/x"])
        guard case .run(let options) = command else {
            Issue.record("expected run, got \(command)")
            return
        }
        #expect(options.busAddress == "unix:path=/tmp/x")
        #expect(options.quiet)
        let configuration = try options.configuration()
        #expect(configuration.adapters.map(\.name) == ["hci0", "hci1"])
        #expect(configuration.boards.first?.autoplay == 3)
        #expect(configuration.behavior.bluezVersion == "5.66")
        #expect(configuration.behavior.gattCache == false)
    }

    @Test func runNeedsABus() {
        #expect(
            throws: FakeBlueZError.invalidConfiguration("no bus: pass --bus ADDRESS or set DBUS_SYSTEM_BUS_ADDRESS")
        ) {
            try BoardSimArguments.parse([], environment: [:])
        }
    }

    @Test func controlCommandLine() throws {
        let command = try BoardSimArguments.parse(
            ["ctl", "play", "air", "e2e4", "e7e5", "--pace", "0.5", "--bus", "unix:path=/b"], environment: [:])
        guard case .control(let request) = command else {
            Issue.record("expected ctl, got \(command)")
            return
        }
        #expect(request.verb == "play")
        #expect(request.arguments == ["air", "e2e4", "e7e5"])
        #expect(request.pace == 0.5)
        #expect(request.busAddress == "unix:path=/b")
        #expect(throws: FakeBlueZError.invalidConfiguration("unknown verb 'fly'")) {
            try ControlRequest.parse(["fly"], environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/b"])
        }
        #expect(throws: FakeBlueZError.invalidValue(key: "--error", value: "boom")) {
            try ControlRequest.parse(["fail-connects", "a", "1", "--error", "boom", "--bus", "x"], environment: [:])
        }
        #expect(throws: FakeBlueZError.invalidConfiguration("'lift' takes 2…2 arguments")) {
            try ControlRequest.parse(["lift", "a", "--bus", "x"], environment: [:])
        }
    }

    @Test func builtInGamesAreLegalAndCoverSpecialMoves() throws {
        var sawCastling = false
        var sawEnPassant = false
        var sawPromotion = false
        for game in BuiltInGames.all {
            let uci = game.uciMoves
            #expect(uci.count == game.san.count, "\(game.title) does not convert completely")
            var position = Position.starting
            for text in uci {
                let move = try #require(position.legalMove(uci: text), "\(game.title): \(text) illegal")
                let mover = try #require(position[move.from])
                if mover.kind == .king && abs(move.to.file - move.from.file) == 2 { sawCastling = true }
                if mover.kind == .pawn && move.from.file != move.to.file && position[move.to] == nil {
                    sawEnPassant = true
                }
                if move.promotion != nil { sawPromotion = true }
                position.apply(move)
            }
            #expect(position.isCheckmate, "\(game.title) should end in mate")
        }
        #expect(sawCastling && sawEnPassant && sawPromotion)
    }

    @Test func identifiers() {
        #expect(BluetoothAddress.normalized("aa:bb:cc:dd:ee:ff") == "AA:BB:CC:DD:EE:FF")
        #expect(BluetoothAddress.normalized("AA_BB_CC_DD_EE_FF") == "AA:BB:CC:DD:EE:FF")
        #expect(BluetoothAddress.normalized("AA:BB:CC:DD:EE") == nil)
        #expect(BluetoothAddress.normalized("GG:BB:CC:DD:EE:FF") == nil)
        #expect(BluetoothAddress.pathElement("AA:BB:CC:DD:EE:FF") == "dev_AA_BB_CC_DD_EE_FF")
        #expect(BluetoothUUID.normalized("180A") == "0000180a-0000-1000-8000-00805f9b34fb")
        #expect(BluetoothUUID.normalized("0x2902") == "00002902-0000-1000-8000-00805f9b34fb")
        #expect(
            BluetoothUUID.normalized("6E400001-B5A3-F393-E0A9-E50E24DCCA9E") == "6e400001-b5a3-f393-e0a9-e50e24dcca9e")
        #expect(BluetoothUUID.normalized("6e400001-b5a3") == nil)
        #expect(HexBytes.parse("21 01 00") == [0x21, 0x01, 0x00])
        #expect(HexBytes.parse("2") == nil)
        #expect(HexBytes.string([0x0a, 0xff]) == "0aff")
    }
}
