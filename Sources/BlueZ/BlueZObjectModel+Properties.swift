import DBus

/// Reading typed properties out of `a{sv}` maps, skipping (and reporting) wrong types.
extension BlueZObjectModel {
    static func apply(
        _ properties: [String: DBusValue], invalidated: [String], to adapter: inout BlueZAdapterInfo,
        issues: inout [BlueZModelIssue]
    ) {
        let path = adapter.path
        if let address = string(properties, "Address", path, &issues) { adapter.address = address.uppercased() }
        if let powered = bool(properties, "Powered", path, &issues) { adapter.powered = powered }
        if let discovering = bool(properties, "Discovering", path, &issues) { adapter.discovering = discovering }
        if invalidated.contains("Powered") { adapter.powered = false }
        if invalidated.contains("Discovering") { adapter.discovering = false }
    }

    static func apply(
        _ properties: [String: DBusValue], invalidated: [String], to device: inout BlueZDeviceInfo,
        issues: inout [BlueZModelIssue]
    ) {
        let path = device.path
        if let name = string(properties, "Name", path, &issues) { device.name = name }
        if let alias = string(properties, "Alias", path, &issues) { device.alias = alias }
        if let raw = properties["RSSI"] {
            if let value = raw.int16Value {
                device.rssi = Int(value)
            } else if let value = raw.int32Value {
                device.rssi = Int(value)
            } else {
                issues.append(typeIssue(path, "RSSI", raw, expected: "n"))
            }
        }
        if let uuids = strings(properties, "UUIDs", path, &issues) { device.uuids = uuids.map { $0.lowercased() } }
        if let connected = bool(properties, "Connected", path, &issues) { device.connected = connected }
        if let resolved = bool(properties, "ServicesResolved", path, &issues) { device.servicesResolved = resolved }
        for name in invalidated {
            switch name {
            case "Name": device.name = nil
            case "Alias": device.alias = nil
            case "RSSI": device.rssi = nil
            case "UUIDs": device.uuids = []
            case "Connected": device.connected = false
            case "ServicesResolved": device.servicesResolved = false
            default: break
            }
        }
    }

    static func apply(
        _ properties: [String: DBusValue], invalidated: [String], to characteristic: inout BlueZCharacteristicInfo,
        issues: inout [BlueZModelIssue]
    ) {
        let path = characteristic.path
        if let uuid = string(properties, "UUID", path, &issues) { characteristic.uuid = uuid.lowercased() }
        if let flags = strings(properties, "Flags", path, &issues) { characteristic.flags = flags }
        if let raw = properties["MTU"] {
            if let mtu = raw.uint16Value {
                characteristic.mtu = Int(mtu)
            } else {
                issues.append(typeIssue(path, "MTU", raw, expected: "q"))
            }
        }
        if invalidated.contains("MTU") { characteristic.mtu = nil }
        if let acquired = bool(properties, "NotifyAcquired", path, &issues) { characteristic.notifyAcquired = acquired }
        if invalidated.contains("NotifyAcquired") { characteristic.notifyAcquired = nil }
    }

    static func string(
        _ properties: [String: DBusValue], _ name: String, _ path: String, _ issues: inout [BlueZModelIssue]
    ) -> String? {
        typed(properties, name, path, "s", &issues) { $0.stringValue }
    }

    static func objectPath(
        _ properties: [String: DBusValue], _ name: String, _ path: String, _ issues: inout [BlueZModelIssue]
    ) -> String? {
        typed(properties, name, path, "o", &issues) { $0.objectPathValue }
    }

    static func bool(
        _ properties: [String: DBusValue], _ name: String, _ path: String, _ issues: inout [BlueZModelIssue]
    ) -> Bool? {
        typed(properties, name, path, "b", &issues) { $0.boolValue }
    }

    static func strings(
        _ properties: [String: DBusValue], _ name: String, _ path: String, _ issues: inout [BlueZModelIssue]
    ) -> [String]? {
        typed(properties, name, path, "as", &issues) { $0.stringArrayValue }
    }

    static func typeIssue(_ path: String, _ name: String, _ value: DBusValue, expected: String) -> BlueZModelIssue {
        BlueZModelIssue(
            .warning,
            "\(path): property \(name) has type '\(value.unwrapped.typeSignature)', expected '\(expected)'; ignored"
        )
    }

    private static func typed<T>(
        _ properties: [String: DBusValue], _ name: String, _ path: String, _ expected: String,
        _ issues: inout [BlueZModelIssue], _ read: (DBusValue) -> T?
    ) -> T? {
        guard let raw = properties[name] else { return nil }
        guard let value = read(raw) else {
            issues.append(typeIssue(path, name, raw, expected: expected))
            return nil
        }
        return value
    }
}
