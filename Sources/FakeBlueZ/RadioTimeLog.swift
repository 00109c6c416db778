public import DBus

/// One LE connect attempt as the simulated radio timed it (`RadioTimes`): what a benchmark
/// compares a hall's start-up with, since an adapter makes one LE connection at a time.
public struct RadioTime: Hashable, Sendable {
    /// The attempt's number, from 1 in this simulator's life (a mark for "since").
    public var sequence: UInt64
    /// The adapter that made it (`hci0`).
    public var adapter: String
    /// The board's Bluetooth address.
    public var address: String
    /// The seconds the attempt held the adapter's radio: drawn from `connectDelay` and
    /// `connectJitter`; for a board out of range the connect timeout, or the wait until it
    /// came into range and its connect.
    public var connect: Double
    /// The seconds of GATT service discovery drawn after the link came up, or `nil` when the
    /// attempt failed.
    public var discovery: Double?
}

extension RadioTime {
    /// The D-Bus signature of one record in `RadioTimes`' reply (`a(tssdd)`).
    public static let dbusSignature = "(tssdd)"

    /// The record as `RadioTimes` sends it: sequence, adapter, address, connect seconds,
    /// discovery seconds (-1: the attempt failed).
    public var dbusValue: DBusValue {
        .struct([.uint64(sequence), .string(adapter), .string(address), .double(connect), .double(discovery ?? -1)])
    }

    /// The records of a `RadioTimes` reply (its first value), oldest first.
    public static func records(in reply: DBusValue?) -> [RadioTime] {
        (reply?.arrayValue ?? []).compactMap(RadioTime.init(dbus:))
    }

    /// A record from `RadioTimes`' reply, or `nil` when `value` is not one.
    public init?(dbus value: DBusValue) {
        guard let fields = value.structValue, fields.count == 5, let sequence = fields[0].uint64Value,
            let adapter = fields[1].stringValue, let address = fields[2].stringValue,
            let connect = fields[3].doubleValue, let discovery = fields[4].doubleValue
        else { return nil }
        self.init(
            sequence: sequence, adapter: adapter, address: address, connect: connect,
            discovery: discovery >= 0 ? discovery : nil)
    }
}

/// The simulator's record of its radios' connect and discovery times, the newest
/// ``capacity`` kept.
struct RadioTimeLog {
    /// The most records kept.
    static let capacity = 4096

    private(set) var records: [RadioTime] = []
    private var sequence: UInt64 = 0

    /// Records an attempt that ended (`discovery` when it linked up).
    mutating func record(adapter: String, address: String, connect: Double, discovery: Double?) {
        sequence += 1
        if records.count == Self.capacity { records.removeFirst(Self.capacity / 4) }
        records.append(
            RadioTime(sequence: sequence, adapter: adapter, address: address, connect: connect, discovery: discovery))
    }

    /// The records after the one numbered `mark` (0: all kept), oldest first.
    func since(_ mark: UInt64) -> [RadioTime] { records.filter { $0.sequence > mark } }
}
