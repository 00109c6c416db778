/// One LE connect attempt as the simulated radio timed it (`RadioTimes`): what a benchmark
/// compares a hall's start-up with, since an adapter makes one LE connection at a time.
public struct RadioTime: Hashable, Sendable {
    /// The attempt's number, from 1 in this simulator's life (a mark for "since").
    public var sequence: UInt64
    /// The adapter that made it (`hci0`).
    public var adapter: String
    /// The board's Bluetooth address.
    public var address: String
    /// The seconds the attempt held the adapter's radio (drawn from `connectDelay` and
    /// `connectJitter`, or the connect timeout for a board out of range).
    public var connect: Double
    /// The seconds of GATT service discovery drawn after the link came up, or `nil` when the
    /// attempt failed.
    public var discovery: Double?
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
