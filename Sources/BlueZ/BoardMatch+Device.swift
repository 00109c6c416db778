import Adapters
public import BoardKit
public import FoundationEssentials

extension BoardMatch {
    /// Whether `device` is this board, for a ``BlueZBoardTransport`` of `family`.
    ///
    /// - ``BoardMatch/any``: the family detected from the advertised name and services is
    ///   `family`.
    /// - ``BoardMatch/address(_:)``: the address is the same (in any case); the family is not
    ///   checked, a configured address is authoritative.
    /// - ``BoardMatch/namePattern(_:)``: the advertised name matches, unless its name or
    ///   services say it belongs to another family.
    public func matches(_ device: BlueZDeviceInfo, family: BoardFamily) -> Bool {
        switch self {
        case .address:
            return matches(address: device.address)
        case .any:
            return AdapterFactory.family(advertisedName: device.advertisedName, serviceUUIDs: device.uuids) == family
        case .namePattern:
            guard matches(advertisedName: device.advertisedName) else { return false }
            let detected = AdapterFactory.family(advertisedName: device.advertisedName, serviceUUIDs: device.uuids)
            return detected == nil || detected == family
        }
    }
}

/// Stable identifiers for discovered boards.
public enum BlueZDeviceID {
    /// A UUID derived from the adapter name and the board address (the same pair always gives
    /// the same UUID, across runs and machines). Version 8 ("custom") UUID from two FNV-1a
    /// hashes.
    public static func uuid(adapter: String, address: String) -> UUID {
        let key = Array("\(adapter)/\(address.uppercased())".utf8)
        let high = fnv1a(key, seed: 0xcbf2_9ce4_8422_2325)
        let low = fnv1a(key, seed: 0x8422_2325_cbf2_9ce4)
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64(index)))
            bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64(index)))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }

    private static func fnv1a(_ bytes: [UInt8], seed: UInt64) -> UInt64 {
        var hash = seed
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}
