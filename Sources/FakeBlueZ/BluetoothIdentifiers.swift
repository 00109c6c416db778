public import BoardKit

extension BluetoothAddress {
    /// The object path element of a device: `dev_AA_BB_CC_DD_EE_FF`.
    public static func pathElement(_ address: String) -> String {
        "dev_" + address.replacingColons(with: "_")
    }
}

/// Bluetooth UUIDs as BlueZ spells them: 128-bit, lower case.
public enum BluetoothUUID {
    /// The Bluetooth base UUID's tail, after the 32-bit prefix.
    static let baseSuffix = "-0000-1000-8000-00805f9b34fb"

    /// `text` (16-bit `180a`, 32-bit `0000180a` or 128-bit) as a lower-case 128-bit UUID,
    /// or `nil` when it is none of these.
    public static func normalized(_ text: String) -> String? {
        let lowered = text.lowercased()
        let stripped = lowered.hasPrefix("0x") ? String(lowered.dropFirst(2)) : lowered
        if stripped.count == 4 || stripped.count == 8, UInt32(stripped, radix: 16) != nil {
            return String(repeating: "0", count: 8 - stripped.count) + stripped + baseSuffix
        }
        let groups = lowered.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.count) == [8, 4, 4, 4, 12],
            groups.allSatisfy({ group in group.allSatisfy { $0.isHexDigit } })
        else { return nil }
        return lowered
    }

    /// The 128-bit form of a 16-bit assigned number.
    public static func assigned(_ number: UInt16) -> String {
        let hex = String(number, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex + baseSuffix
    }
}

extension String {
    func replacingColons(with replacement: Character) -> String {
        String(map { $0 == ":" ? replacement : $0 })
    }
}
