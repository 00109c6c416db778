public import BoardKit
public import Foundation

/// Feeds a stateful framer the same bytes in different splits, the way swift-nio's
/// decoder verifier does: every split must give the same events.
public enum FramingVerifier {
    /// The events `adapter` emits for `bytes` fed all at once.
    public static func eventsAllAtOnce<A: BoardAdapter>(_ adapter: A, _ bytes: Data) -> [BoardEvent] {
        var copy = adapter
        return copy.feed(bytes: bytes)
    }

    /// The events `adapter` emits for `bytes` fed one byte at a time.
    public static func eventsByteByByte<A: BoardAdapter>(_ adapter: A, _ bytes: Data) -> [BoardEvent] {
        var copy = adapter
        var events: [BoardEvent] = []
        for byte in bytes { events += copy.feed(bytes: Data([byte])) }
        return events
    }

    /// The events `adapter` emits for `bytes` cut at random places (seeded).
    public static func eventsInRandomSplits<A: BoardAdapter>(
        _ adapter: A, _ bytes: Data, seed: UInt64
    ) -> [BoardEvent] {
        var copy = adapter
        var generator = SeededGenerator(seed: seed)
        var events: [BoardEvent] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let length = Int.random(in: 1...max(1, min(40, bytes.endIndex - index)), using: &generator)
            let end = bytes.index(index, offsetBy: length)
            events += copy.feed(bytes: bytes[index..<end])
            index = end
        }
        return events
    }

    /// Whether all three ways of feeding `bytes` give the same events; returns the
    /// all-at-once events and the first mismatch, if any, for a readable failure.
    public static func verify<A: BoardAdapter>(
        _ adapter: A, _ bytes: Data, seeds: [UInt64] = [1, 2, 3]
    ) -> (events: [BoardEvent], mismatch: String?) {
        let reference = eventsAllAtOnce(adapter, bytes)
        let byteByByte = eventsByteByByte(adapter, bytes)
        if byteByByte != reference {
            return (reference, "byte-by-byte gave \(byteByByte), all-at-once gave \(reference)")
        }
        for seed in seeds {
            let split = eventsInRandomSplits(adapter, bytes, seed: seed)
            if split != reference {
                return (reference, "random split (seed \(seed)) gave \(split), all-at-once gave \(reference)")
            }
        }
        return (reference, nil)
    }
}

extension Data {
    /// Bytes from a hex string; spaces, colons and newlines are ignored. `nil` on bad hex.
    public init?(hex: String) {
        guard let bytes = HexBytes.parse(hex, ignoring: " :\n\t-") else { return nil }
        self.init(bytes)
    }

    /// Lower-case hex, bytes separated by spaces.
    public var hexDescription: String {
        HexBytes.string(self, separator: " ")
    }
}
