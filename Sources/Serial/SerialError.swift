/// A serial-line call failed: which call, on which path, and the system's reason.
public struct SerialError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The failing step (`open`, `tcsetattr`, `read`, …).
    public var operation: String
    /// The device path, when there is one.
    public var path: String?
    /// `errno` as the system set it.
    public var code: Int32
    /// The system's text for ``code``.
    public var reason: String

    /// Whether the device is gone (unplugged): the file or the device no longer exists.
    public var deviceIsGone: Bool {
        code == SerialSystem.noSuchFile || code == SerialSystem.noSuchDevice || code == SerialSystem.ioError
    }

    /// `open /dev/ttyUSB0: No such file or directory`.
    public var description: String {
        "\(operation)\(path.map { " \($0)" } ?? ""): \(reason)"
    }
}
