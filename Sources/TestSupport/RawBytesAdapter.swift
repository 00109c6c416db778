public import BoardKit
public import Foundation

/// A byte adapter for link tests (RFCOMM, stream links): every chunk read becomes
/// ``BoardKit/BoardEvent/raw(_:)``; `.requestState` encodes `"S"`, `.startSession` `"H"`,
/// `.requestBattery` `"R"`; the handshake is `"H"` on a first connect and `"R"` on a
/// reconnect; a chunk that starts with `"A"` asks for the mandatory response `"a"`.
public struct RawBytesAdapter: BoardAdapter {
    private var pending: [Data] = []

    /// An adapter with nothing pending.
    public init() {}

    /// None.
    public var capabilities: BoardCapabilities { [] }

    /// The chunk as one `.raw` event.
    public mutating func feed(bytes: Data) -> [BoardEvent] {
        if bytes.first == UInt8(ascii: "A") { pending.append(Data("a".utf8)) }
        return bytes.isEmpty ? [] : [.raw(bytes)]
    }

    /// `"a"` for each chunk that started with `"A"` since the last call.
    public mutating func takePendingResponses() -> [Data] {
        defer { pending = [] }
        return pending
    }

    /// One letter per command it knows.
    public func encode(_ command: BoardCommand) -> Data? {
        switch command {
        case .startSession: Data("H".utf8)
        case .requestState: Data("S".utf8)
        case .requestBattery: Data("R".utf8)
        default: nil
        }
    }

    /// `"H"`, or `"R"` on a reconnect.
    public func handshakeCommands(isReconnect: Bool) -> [(command: BoardCommand, delayBefore: TimeInterval)] {
        [(isReconnect ? .requestBattery : .startSession, 0)]
    }
}
