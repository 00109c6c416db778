import BoardKit

extension BoardConfiguration {
    /// Parses a `key=value,…` specification, as `boardsim --board` and `ctl add-board` take:
    ///
    /// `family=chessnut,name=Chessnut Air,address=AA:BB:CC:00:00:01,adapter=hci0,rssi=-50,flipped=false`
    ///
    /// Keys: `family` (`chessnut`, `chessup`, `squareoff`, `pegasus`, `millennium`) and
    /// `address` are required; `id`, `name`, `adapter`, `type` (`public`/`random`), `rssi`,
    /// `txpower`, `flipped`, `mtu`, `fen`, `autoplay` (seconds per move), `retransmit` (ChessUp:
    /// seconds before an unacknowledged move report is resent), `known`, `present`,
    /// `battery`, `charging`, `uuids` (`;`-separated), `manufacturer` (`ID:HEX;…`),
    /// `servicedata` (`UUID:HEX;…`), `key` (Pegasus: the developer key the firmware
    /// accepts, 6 bytes hex), `silent` (the firmware ignores every write), `transport`
    /// (`dgt`: `pty`, the default, or `rfcomm`) and `link` (`pty`: the line's stable name)
    /// are optional. Keys are case-insensitive.
    ///
    /// - Throws: ``FakeBlueZError/invalidConfiguration(_:)`` for unknown keys or missing
    ///   required ones, ``FakeBlueZError/invalidValue(key:value:)`` for bad values.
    public init(specification: String) throws(FakeBlueZError) {
        var fields: [String: String] = [:]
        for (key, value) in try SpecificationParser.pairs(specification) { fields[key] = value }
        guard let familyName = fields.removeValue(forKey: "family") else {
            throw .invalidConfiguration("board specification without family: \(specification)")
        }
        // A DGT e-Board is no Bluetooth LE board: it sits behind a pty or RFCOMM (`transport`).
        guard let family = BoardFamily(rawValue: familyName.lowercased()) else {
            throw .invalidValue(key: "family", value: familyName)
        }
        guard let address = fields.removeValue(forKey: "address") else {
            throw .invalidConfiguration("board specification without address: \(specification)")
        }
        self.init(family: family, address: address)
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            try apply(key: key, value: value)
        }
        self = try validated()
    }

    private mutating func apply(key: String, value: String) throws(FakeBlueZError) {
        switch key {
        case "id": id = value
        case "name": name = value
        case "adapter": adapter = value
        case "type", "addresstype": addressType = value
        case "rssi": rssi = try SpecificationParser.integer(value, key: key)
        case "txpower": txPower = try SpecificationParser.integer(value, key: key)
        case "flipped": flipped = try SpecificationParser.bool(value, key: key)
        case "mtu": mtu = try SpecificationParser.integer(value, key: key)
        case "fen": fen = value
        case "autoplay": autoplay = try SpecificationParser.double(value, key: key)
        case "retransmit": retransmit = try SpecificationParser.double(value, key: key)
        case "known": known = try SpecificationParser.bool(value, key: key)
        case "present": present = try SpecificationParser.bool(value, key: key)
        case "battery": battery = try SpecificationParser.integer(value, key: key)
        case "charging": charging = try SpecificationParser.bool(value, key: key)
        case "uuids": serviceUUIDs = value.split(separator: ";").map(String.init)
        case "manufacturer": manufacturerData = try SpecificationParser.map(value, key: key)
        case "servicedata": serviceData = try SpecificationParser.map(value, key: key)
        case "key", "developerkey": developerKey = value
        case "silent": silent = try SpecificationParser.bool(value, key: key)
        case "transport": transport = value.lowercased()
        case "link": link = value
        case "leds": leds = value.lowercased()
        case "dialect": dialect = value
        default: throw .invalidConfiguration("unknown board key '\(key)'")
        }
    }
}

/// Splits `key=value,key=value` specifications.
enum SpecificationParser {
    /// The pairs in order, keys lower-cased. Values may contain `=` but not `,`.
    static func pairs(_ text: String) throws(FakeBlueZError) -> [(String, String)] {
        var result: [(String, String)] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: true) {
            guard let equals = item.firstIndex(of: "=") else {
                throw .invalidConfiguration("'\(item)' is not key=value")
            }
            let key = item[..<equals].trimmingSpaces().lowercased()
            let value = item[item.index(after: equals)...].trimmingSpaces()
            guard !key.isEmpty else { throw .invalidConfiguration("'\(item)' has no key") }
            guard !result.contains(where: { $0.0 == key }) else {
                throw .invalidConfiguration("key '\(key)' given twice")
            }
            result.append((key, value))
        }
        return result
    }

    static func bool(_ value: String, key: String) throws(FakeBlueZError) -> Bool {
        switch value.lowercased() {
        case "true", "yes", "on", "1": return true
        case "false", "no", "off", "0": return false
        default: throw .invalidValue(key: key, value: value)
        }
    }

    static func integer(_ value: String, key: String) throws(FakeBlueZError) -> Int {
        guard let number = Int(value) else { throw .invalidValue(key: key, value: value) }
        return number
    }

    static func double(_ value: String, key: String) throws(FakeBlueZError) -> Double {
        guard let number = Double(value), number.isFinite else { throw .invalidValue(key: key, value: value) }
        return number
    }

    /// `ID:HEX;ID:HEX` (the key may itself contain `:` only for UUIDs, which have none).
    static func map(_ value: String, key: String) throws(FakeBlueZError) -> [String: String] {
        var result: [String: String] = [:]
        for item in value.split(separator: ";") {
            guard let colon = item.lastIndex(of: ":") else { throw .invalidValue(key: key, value: String(item)) }
            result[String(item[..<colon])] = String(item[item.index(after: colon)...])
        }
        return result
    }
}

extension Substring {
    func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
