/// Bluetooth device addresses as BlueZ spells them (`AA:BB:CC:DD:EE:FF`).
public enum BluetoothAddress {
    /// `text` as an upper-case `AA:BB:CC:DD:EE:FF` address, or `nil` when it is not six
    /// pairs of hexadecimal digits (either case) joined by one of `separators` (`:`, `-` or
    /// `_` by default; the bridge's configuration takes `:` only).
    public static func normalized(_ text: String, separators: Set<Character> = [":", "-", "_"]) -> String? {
        let parts = text.split(omittingEmptySubsequences: false) { separators.contains($0) }
        guard parts.count == 6,
            parts.allSatisfy({ $0.count == 2 && $0.allSatisfy { $0.isASCII && $0.isHexDigit } })
        else { return nil }
        return parts.map { $0.uppercased() }.joined(separator: ":")
    }
}
