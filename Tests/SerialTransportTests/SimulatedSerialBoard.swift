import Adapters
import BoardKit
public import Emulation
public import Foundation
import MainLoop
import Serial

/// An emulated board behind a pseudo-terminal, reached by a stable link name the way
/// `/dev/serial/by-id/…` names a USB board: unplugging closes the pseudo-terminal and
/// removes the link, plugging in opens a new one and points the link at it.
@MainActor
public final class SimulatedSerialBoard {
    /// The board's firmware.
    public var personality: any BoardPersonality
    /// The stable name (a symbolic link to the current pseudo-terminal while plugged in).
    public let linkPath: String
    private var terminal: PseudoTerminal?
    private var holder: SerialPort?
    private var watch: DescriptorWatch?
    private var ticker: Task<Void, Never>?
    private let start = ContinuousClock.now

    /// A board named `usb-DGT_DGT_Board_0001-if00` in `folder`, not plugged in yet.
    public init(_ personality: any BoardPersonality, folder: URL) {
        self.personality = personality
        linkPath = folder.appendingPathComponent("usb-DGT_DGT_Board_0001-if00").path
    }

    /// Seconds since the board was made (the personality's clock).
    public var now: TimeInterval {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// Whether the board is plugged in.
    public var isPlugged: Bool { terminal != nil }

    /// Plugs the board in: a new pseudo-terminal, the link pointed at it.
    public func plug() throws {
        let terminal = try PseudoTerminal()
        // Held open so the controlling side never reads a hang-up while nobody has the line.
        holder = try SerialPort.open(path: terminal.devicePath)
        try? FileManager.default.removeItem(atPath: linkPath)
        try FileManager.default.createSymbolicLink(atPath: linkPath, withDestinationPath: terminal.devicePath)
        self.terminal = terminal
        send(personality.linkEstablished(at: now))
        watch = DescriptorWatch(descriptor: terminal.descriptor, closesDescriptor: false) { [weak self] in
            self?.readable()
        }
        if let interval = personality.tickInterval {
            ticker = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(interval))
                    guard let self else { return }
                    self.send(self.personality.tick(at: self.now))
                }
            }
        }
    }

    /// Unplugs the board: the pseudo-terminal closes (the host reads a hang-up) and the
    /// link goes away.
    public func unplug() {
        ticker?.cancel()
        watch?.cancel()
        watch = nil
        try? FileManager.default.removeItem(atPath: linkPath)
        holder?.close()
        holder = nil
        terminal?.close()
        terminal = nil
        personality.linkLost()
    }

    /// A person's action on the board; its messages go to the host when plugged in.
    public func perform(_ action: PhysicalAction) {
        send(personality.perform(action, at: now))
    }

    private func readable() {
        guard let terminal else { return }
        let bytes = terminal.read()
        guard !bytes.isEmpty else { return }
        send(personality.handleWrite(Data(bytes), at: now))
    }

    private func send(_ notifications: [Data]) {
        // Unplugged, the board's messages go nowhere (a real board's do too).
        for notification in notifications { terminal?.write(Array(notification)) }
    }
}
