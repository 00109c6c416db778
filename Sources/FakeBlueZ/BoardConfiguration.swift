import Adapters
public import BoardKit

/// One simulated board: what it is, how it advertises, how it is set up.
///
/// Decoded from JSON (every key but `family` and `address` optional) or parsed from a
/// `key=value,…` specification (``init(specification:)``, `boardsim --board`, `ctl add-board`).
public struct BoardConfiguration: Hashable, Sendable, Codable {
    /// How the board is named in the control interface; the address when absent.
    public var id: String?
    /// The family, which picks the firmware personality and the GATT profile.
    public var family: BoardFamily
    /// The advertised name; a family default (`Chessnut Air`…) when absent.
    public var name: String?
    /// The Bluetooth address (`AA:BB:CC:00:00:01`).
    public var address: String
    /// `public` or `random`.
    public var addressType: String
    /// The adapter that sees the board (`hci0`).
    public var adapter: String
    /// The typical RSSI in dBm.
    public var rssi: Int
    /// The advertised TX power in dBm, if any.
    public var txPower: Int?
    /// Whether Black sits on the near side (the wire order flips).
    public var flipped: Bool
    /// The server's ATT MTU; a family default when absent (Chessnut 185, Millennium 160,
    /// iChessOne 23, others 247). Notifications longer than MTU − 3 are truncated or refused.
    public var mtu: Int?
    /// The position set up at start (a FEN or a FEN placement); the starting position when absent.
    public var fen: String?
    /// Seconds per move of the built-in autoplay games; none when absent.
    public var autoplay: Double?
    /// ChessUp only: seconds before a move report without an ack is sent again; the real
    /// board's 0.3 s when absent.
    public var retransmit: Double?
    /// Whether BlueZ knows the device from the start (a device object exists before any scan,
    /// as for a board connected before).
    public var known: Bool
    /// Whether the board is switched on and in range (advertises, accepts connections).
    public var present: Bool
    /// Battery level in percent.
    public var battery: Int
    /// Whether the battery is charging.
    public var charging: Bool
    /// Advertised manufacturer data: company id (`"0x04b8"` or decimal) → hex bytes.
    public var manufacturerData: [String: String]
    /// Advertised service data: UUID → hex bytes.
    public var serviceData: [String: String]
    /// Advertised service UUIDs; the profile's (usually none) when absent.
    public var serviceUUIDs: [String]?
    /// Pegasus only: the developer key (hex, 6 bytes) the firmware accepts; the built-in
    /// default key when absent. Another key than the bridge's makes the board refuse the
    /// unlock, as a real board does with a wrong key.
    public var developerKey: String?
    /// Whether the firmware ignores every write (a board that never answers its handshake).
    public var silent: Bool
    /// How the host reaches it: `ble` (GATT, every family but `dgt`), `pty` (a DGT e-Board
    /// on a USB / serial line: a pseudo-terminal) or `rfcomm` (a Bluetooth DGT e-Board behind
    /// the fake's `ProfileManager1`). A `dgt` board defaults to `pty`.
    public var transport: String?
    /// `pty` only: the stable name of the line (a symbolic link to the pseudo-terminal, as
    /// `/dev/serial/by-id/…` is), default `boardsim-<pid>-<id>` in the temporary folder.
    public var link: String?
    /// Certabo and Sentio only: `classic` (one LED per square, 8-byte writes, frames marked
    /// `L`) or `rgb` (81 RGB LEDs at the squares' corners, frames marked `D`, which takes RGB
    /// writes only); `classic` when absent.
    public var leds: String?
    /// `cpp` only: the protocol's dialect, `2025` (today's: `begin`, `sync`/`unsync`) or
    /// `2024` (`fen`, every command answered, as OPENCHESSBOARD's firmware); `2025` when
    /// absent.
    public var dialect: String?

    /// A board of `family` at `address`, every other setting at its default.
    public init(family: BoardFamily, address: String, name: String? = nil, adapter: String = "hci0", id: String? = nil)
    {
        self.id = id
        self.family = family
        self.name = name
        self.address = address
        self.addressType = "public"
        self.adapter = adapter
        self.rssi = -60
        self.txPower = nil
        self.flipped = false
        self.mtu = nil
        self.fen = nil
        self.autoplay = nil
        self.retransmit = nil
        self.known = false
        self.present = true
        self.battery = 100
        self.charging = false
        self.manufacturerData = [:]
        self.serviceData = [:]
        self.serviceUUIDs = nil
        self.developerKey = nil
        self.silent = false
        self.transport = nil
        self.link = nil
        self.leds = nil
        self.dialect = nil
    }

    /// Decodes, with defaults for every key but `family` and `address`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            family: try container.decode(BoardFamily.self, forKey: .family),
            address: try container.decode(String.self, forKey: .address))
        func value<T: Decodable>(_ key: CodingKeys, _ fallback: T) throws -> T {
            try container.decodeIfPresent(T.self, forKey: key) ?? fallback
        }
        id = try container.decodeIfPresent(String.self, forKey: .id)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        addressType = try value(.addressType, addressType)
        adapter = try value(.adapter, adapter)
        rssi = try value(.rssi, rssi)
        txPower = try container.decodeIfPresent(Int.self, forKey: .txPower)
        flipped = try value(.flipped, flipped)
        mtu = try container.decodeIfPresent(Int.self, forKey: .mtu)
        fen = try container.decodeIfPresent(String.self, forKey: .fen)
        autoplay = try container.decodeIfPresent(Double.self, forKey: .autoplay)
        retransmit = try container.decodeIfPresent(Double.self, forKey: .retransmit)
        known = try value(.known, known)
        present = try value(.present, present)
        battery = try value(.battery, battery)
        charging = try value(.charging, charging)
        manufacturerData = try value(.manufacturerData, manufacturerData)
        serviceData = try value(.serviceData, serviceData)
        serviceUUIDs = try container.decodeIfPresent([String].self, forKey: .serviceUUIDs)
        developerKey = try container.decodeIfPresent(String.self, forKey: .developerKey)
        silent = try value(.silent, silent)
        transport = try container.decodeIfPresent(String.self, forKey: .transport)
        link = try container.decodeIfPresent(String.self, forKey: .link)
        leds = try container.decodeIfPresent(String.self, forKey: .leds)
        dialect = try container.decodeIfPresent(String.self, forKey: .dialect)
    }

    /// The transport in effect (`ble`, `pty` or `rfcomm`).
    public var effectiveTransport: String { transport ?? (family.isBluetoothLE ? "ble" : "pty") }

    /// The Chess Peripheral Protocol dialect `dialect` names (today's when absent).
    var chessPeripheralDialect: ChessPeripheralAdapter.Dialect { dialect == "2024" ? .acknowledged : .current }

    /// The advertised name in effect.
    public var effectiveName: String { name ?? Self.defaultName(for: family) }
    /// The id in effect (the normalized address when none is configured).
    public var effectiveID: String { id ?? BluetoothAddress.normalized(address) ?? address }
    /// The MTU in effect.
    public var effectiveMTU: Int { mtu ?? Self.defaultMTU(for: family) }

    /// A typical advertised name of `family`.
    public static func defaultName(for family: BoardFamily) -> String {
        switch family {
        case .chessnut: "Chessnut Air"
        case .chessUp: "ChessUp"
        case .squareOff: "Squareoff Pro"
        case .dgtPegasus: "DGT_Pegasus_SIM"
        case .dgt: "DGT e-Board"
        case .millennium: "MILLENNIUM CHESS"
        case .certabo: "Certabo"
        case .sentio: "Sentio"
        case .iChessOne: "iChessOne"
        case .chessPeripheral: "CPP Board"
        }
    }

    /// The server MTU boards of `family` negotiate (board-protocols.md: the Chessnut Air gave
    /// 185 on macOS, the Millennium's server MTU is 160; the iChessOne's is not known, so
    /// the ATT default of 23, which splits its 34-byte position in two notifications).
    public static func defaultMTU(for family: BoardFamily) -> Int {
        switch family {
        case .chessnut: 185
        case .millennium: 160
        case .iChessOne: 23
        case .chessUp, .squareOff, .dgtPegasus, .dgt, .certabo, .sentio, .chessPeripheral: 247
        }
    }

    /// Checks every value and returns the board with its address normalized.
    func validated() throws(FakeBlueZError) -> BoardConfiguration {
        var board = self
        guard let address = BluetoothAddress.normalized(address) else {
            throw .invalidValue(key: "address", value: self.address)
        }
        board.address = address
        guard addressType == "public" || addressType == "random" else {
            throw .invalidValue(key: "addressType", value: addressType)
        }
        try AdapterConfiguration(name: adapter).validate()
        guard (-127...20).contains(rssi) else { throw .invalidValue(key: "rssi", value: "\(rssi)") }
        if let txPower, !(-127...20).contains(txPower) { throw .invalidValue(key: "txPower", value: "\(txPower)") }
        if let mtu, !(23...517).contains(mtu) { throw .invalidValue(key: "mtu", value: "\(mtu)") }
        if let autoplay, !(autoplay >= 0 && autoplay <= 3600) {
            throw .invalidValue(key: "autoplay", value: "\(autoplay)")
        }
        if let retransmit, !(retransmit > 0 && retransmit <= 3600) {
            throw .invalidValue(key: "retransmit", value: "\(retransmit)")
        }
        guard (0...100).contains(battery) else { throw .invalidValue(key: "battery", value: "\(battery)") }
        switch (effectiveTransport, family) {
        case ("ble", let family) where family.isBluetoothLE: break
        case ("pty", let family) where family.connectsOverSerialLine: break
        case ("rfcomm", .dgt): break
        default: throw .invalidValue(key: "transport", value: effectiveTransport)
        }
        if let link, !link.hasPrefix("/") || effectiveTransport != "pty" {
            throw .invalidValue(key: "link", value: link)
        }
        if let leds, !["classic", "rgb"].contains(leds) || ![.certabo, .sentio].contains(family) {
            throw .invalidValue(key: "leds", value: leds)
        }
        if let dialect, !["2024", "2025"].contains(dialect) || family != .chessPeripheral {
            throw .invalidValue(key: "dialect", value: dialect)
        }
        if let fen { _ = try SimulatedGame.position(fen: fen) }
        for (key, bytes) in manufacturerData {
            guard Self.companyID(key) != nil else { throw .invalidValue(key: "manufacturerData", value: key) }
            guard HexBytes.parse(bytes) != nil else { throw .invalidValue(key: "manufacturerData", value: bytes) }
        }
        for (key, bytes) in serviceData {
            guard BluetoothUUID.normalized(key) != nil else { throw .invalidValue(key: "serviceData", value: key) }
            guard HexBytes.parse(bytes) != nil else { throw .invalidValue(key: "serviceData", value: bytes) }
        }
        for uuid in serviceUUIDs ?? [] where BluetoothUUID.normalized(uuid) == nil {
            throw .invalidValue(key: "serviceUUIDs", value: uuid)
        }
        if let developerKey, HexBytes.parse(developerKey)?.count != 6 {
            throw .invalidValue(key: "developerKey", value: developerKey)
        }
        if let id, id.isEmpty || id.contains("\0") { throw .invalidValue(key: "id", value: id) }
        if let name, name.isEmpty || name.contains("\0") { throw .invalidValue(key: "name", value: name) }
        return board
    }

    /// A company id written as `0x004c` or `76`.
    static func companyID(_ text: String) -> UInt16? {
        let lowered = text.lowercased()
        return lowered.hasPrefix("0x") ? UInt16(lowered.dropFirst(2), radix: 16) : UInt16(lowered)
    }

    /// The advertised manufacturer data, sorted by company id.
    var advertisedManufacturerData: [(UInt16, [UInt8])] {
        manufacturerData.compactMap { key, value in
            guard let id = Self.companyID(key), let bytes = HexBytes.parse(value) else { return nil }
            return (id, bytes)
        }.sorted { $0.0 < $1.0 }
    }

    /// The advertised service data, sorted by UUID.
    var advertisedServiceData: [(String, [UInt8])] {
        serviceData.compactMap { key, value in
            guard let uuid = BluetoothUUID.normalized(key), let bytes = HexBytes.parse(value) else { return nil }
            return (uuid, bytes)
        }.sorted { $0.0 < $1.0 }
    }

    /// The advertised service UUIDs (normalized), followed by any service-data UUIDs. A
    /// Pegasus advertises the Nordic UART service (the DGT app scans for it, since users
    /// rename their boards).
    var advertisedUUIDs: [String] {
        var defaults = AdapterFactory.profile(for: family, advertisedName: effectiveName).advertisedServiceUUIDs
        if family == .dgtPegasus && defaults.isEmpty { defaults = [PegasusAdapter.nordicUARTServiceUUID] }
        let listed = serviceUUIDs?.compactMap(BluetoothUUID.normalized) ?? defaults
        var result: [String] = []
        for uuid in listed + advertisedServiceData.map(\.0) where !result.contains(uuid) { result.append(uuid) }
        return result
    }
}
