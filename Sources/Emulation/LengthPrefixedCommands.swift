/// How the DGT and Pegasus firmwares read commands from their byte stream: one byte each,
/// except a command whose first byte is one of ``lengthPrefixed``, whose second byte counts
/// the bytes after it. A command may continue in the next write; one longer than
/// ``maximumLength`` is malformed, and the firmware drops everything it has buffered.
struct LengthPrefixedCommands: Sendable {
    /// The first bytes of the commands that carry a length.
    let lengthPrefixed: Set<UInt8>
    /// The longest command the firmware buffers.
    let maximumLength: Int

    /// Takes every complete command off the front of `pending` (an incomplete one stays);
    /// `malformed` when a too-long command emptied it.
    func take(from pending: inout [UInt8]) -> (commands: [[UInt8]], malformed: Bool) {
        var commands: [[UInt8]] = []
        while let first = pending.first {
            var length = 1
            if lengthPrefixed.contains(first) {
                guard pending.count >= 2 else { break }
                length = 2 + Int(pending[1])
                guard length <= maximumLength else {
                    pending.removeAll()
                    return (commands, true)
                }
                guard pending.count >= length else { break }
            }
            commands.append(Array(pending.prefix(length)))
            pending.removeFirst(length)
        }
        return (commands, false)
    }
}
