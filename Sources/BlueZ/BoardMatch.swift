import Adapters
import BoardKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Which board a ``BlueZBoardTransport`` is for.
public enum BoardMatch: Hashable, Sendable, CustomStringConvertible {
    /// The first board of the transport's family that shows up.
    case any
    /// The board with this Bluetooth address (`AA:BB:CC:DD:EE:FF`, any case). The family
    /// is not checked: a configured address is authoritative.
    case address(String)
    /// A board whose advertised name matches this glob (`*` any run, `?` one character;
    /// case-insensitive), unless its name or services say it belongs to another family.
    case namePattern(String)

    /// `any`, `address AA:…`, `name "Chessnut*"`.
    public var description: String {
        switch self {
        case .any: "any"
        case .address(let address): "address \(address.uppercased())"
        case .namePattern(let pattern): "name \"\(pattern)\""
        }
    }

    /// Whether `device` is this board, for a transport of `family`.
    public func matches(_ device: BlueZDeviceInfo, family: BoardFamily) -> Bool {
        switch self {
        case .address(let address):
            return device.address.uppercased() == address.uppercased()
        case .any:
            return AdapterFactory.family(advertisedName: device.advertisedName, serviceUUIDs: device.uuids) == family
        case .namePattern(let pattern):
            guard let name = device.advertisedName, Self.glob(pattern, matches: name) else { return false }
            let detected = AdapterFactory.family(advertisedName: name, serviceUUIDs: device.uuids)
            return detected == nil || detected == family
        }
    }

    /// Whether `text` matches the glob `pattern` (`*`, `?`; case-insensitive).
    public static func glob(_ pattern: String, matches text: String) -> Bool {
        let pattern = Array(pattern.lowercased())
        let text = Array(text.lowercased())
        var p = 0
        var t = 0
        var star: Int?
        var resume = 0
        while t < text.count {
            if p < pattern.count && (pattern[p] == "?" || (pattern[p] != "*" && pattern[p] == text[t])) {
                p += 1
                t += 1
            } else if p < pattern.count && pattern[p] == "*" {
                star = p
                resume = t
                p += 1
            } else if let star {
                p = star + 1
                resume += 1
                t = resume
            } else {
                return false
            }
        }
        while p < pattern.count && pattern[p] == "*" { p += 1 }
        return p == pattern.count
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
