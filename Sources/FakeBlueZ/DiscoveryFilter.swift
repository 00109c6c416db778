import DBus

/// One client's `SetDiscoveryFilter` (reference/bluez-dbus.md §2.1): which advertisements it
/// wants reported. BlueZ merges the filters of all clients (a device is reported when any
/// discovering client's filter accepts it; a client without a filter accepts everything).
struct DiscoveryFilter: Hashable, Sendable {
    /// Service UUIDs (128-bit, lower case); empty accepts any.
    var uuids: [String] = []
    /// The weakest RSSI reported.
    var rssi: Int16?
    /// The largest path loss (TX power − RSSI) reported.
    var pathloss: UInt16?
    /// `auto`, `le` or `bredr`.
    var transport = "auto"
    /// Report every advertisement, not only changes of the data.
    var duplicateData = false
    /// Only discoverable devices.
    var discoverable = false
    /// An address or name prefix.
    var pattern = ""
    /// Connect to a device that matches the pattern (accepted, not acted on).
    var autoConnect = false

    /// The keys `GetDiscoveryFilters` lists.
    static let keys = ["UUIDs", "RSSI", "Pathloss", "Transport", "DuplicateData", "Discoverable", "Pattern"]

    /// Parses the `a{sv}` argument; `nil` for an empty dictionary (which clears the filter).
    ///
    /// - Throws: BlueZ's `InvalidArguments` for an unknown key, a wrong variant type, an
    ///   out-of-range value, or RSSI and Pathloss together.
    static func parse(_ argument: DBusValue, allowsAutoConnect: Bool) throws(DBusError) -> DiscoveryFilter? {
        guard let entries = argument.dictionaryEntries else { throw BlueZErrors.invalidArguments }
        if entries.isEmpty { return nil }
        var filter = DiscoveryFilter()
        for entry in entries {
            guard let key = entry.key.stringValue, let value = entry.value.variantValue else {
                throw BlueZErrors.invalidArguments
            }
            switch key {
            case "UUIDs":
                guard let strings = value.stringArrayValue else { throw BlueZErrors.invalidArguments }
                var uuids: [String] = []
                for string in strings {
                    guard let uuid = BluetoothUUID.normalized(string) else { throw BlueZErrors.invalidArguments }
                    uuids.append(uuid)
                }
                filter.uuids = uuids
            case "RSSI":
                guard case .int16(let rssi) = value, (-127...20).contains(rssi) else {
                    throw BlueZErrors.invalidArguments
                }
                filter.rssi = rssi
            case "Pathloss":
                guard case .uint16(let pathloss) = value else { throw BlueZErrors.invalidArguments }
                filter.pathloss = pathloss
            case "Transport":
                guard case .string(let transport) = value, ["auto", "le", "bredr"].contains(transport) else {
                    throw BlueZErrors.invalidArguments
                }
                filter.transport = transport
            case "DuplicateData":
                guard case .bool(let flag) = value else { throw BlueZErrors.invalidArguments }
                filter.duplicateData = flag
            case "Discoverable":
                guard case .bool(let flag) = value else { throw BlueZErrors.invalidArguments }
                filter.discoverable = flag
            case "Pattern":
                guard case .string(let pattern) = value else { throw BlueZErrors.invalidArguments }
                filter.pattern = pattern
            case "AutoConnect" where allowsAutoConnect:
                guard case .bool(let flag) = value else { throw BlueZErrors.invalidArguments }
                filter.autoConnect = flag
            default:
                throw BlueZErrors.invalidArguments
            }
        }
        if filter.rssi != nil && filter.pathloss != nil { throw BlueZErrors.invalidArguments }
        return filter
    }

    /// Whether an advertisement passes this filter.
    func accepts(_ advertisement: Advertisement) -> Bool {
        if transport == "bredr" { return false }
        if !uuids.isEmpty && !uuids.contains(where: advertisement.uuids.contains) { return false }
        if let rssi, advertisement.rssi < rssi { return false }
        if let pathloss {
            guard let txPower = advertisement.txPower else { return false }
            if Int(txPower) - Int(advertisement.rssi) > Int(pathloss) { return false }
        }
        if !pattern.isEmpty && !advertisement.address.hasPrefix(pattern)
            && !(advertisement.name?.hasPrefix(pattern) ?? false)
        {
            return false
        }
        return true
    }

    /// Whether the filter turns off BlueZ's 8 dBm RSSI change threshold.
    var wantsEveryRSSIChange: Bool { rssi != nil || pathloss != nil }
}

/// One advertisement report of a board, as the adapter receives it.
struct Advertisement: Sendable {
    var address: String
    var name: String?
    var rssi: Int16
    var txPower: Int16?
    var uuids: [String]
    var manufacturerData: [(UInt16, [UInt8])]
    var serviceData: [(String, [UInt8])]
}
