/// CRC-32 as zlib, PNG and Ethernet compute it (IEEE 802.3, reflected polynomial
/// `0xEDB88320`, initial value and final XOR `0xFFFFFFFF`): `checksum("123456789")` is
/// `0xCBF43926`. It checks each journal line (``SessionJournalLine``).
public enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
        return value
    }

    /// The checksum of `bytes`.
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        table.withUnsafeBufferPointer { table in
            func update(_ crc: inout UInt32, _ byte: UInt8) {
                crc = table[Int(UInt8(truncatingIfNeeded: crc) ^ byte)] ^ (crc >> 8)
            }
            var crc: UInt32 = 0xFFFF_FFFF
            let contiguous = bytes.withContiguousStorageIfAvailable { buffer in
                var value = crc
                for byte in buffer { update(&value, byte) }
                return value
            }
            if let contiguous {
                crc = contiguous
            } else {
                for byte in bytes { update(&crc, byte) }
            }
            return crc ^ 0xFFFF_FFFF
        }
    }
}
