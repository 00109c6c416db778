import Adapters
import BoardKit
import Emulation
import Foundation
import MainLoop
import Serial

/// An emulated board behind a pseudo-terminal, reached by a stable link name the way
/// `/dev/serial/by-id/…` names a USB board: unplugging closes the pseudo-terminal and
/// removes the link, plugging in opens a new one and points the link at it.
@MainActor
final class SimulatedSerialBoard {
    var personality: any BoardPersonality
    let linkPath: String
    private var terminal: PseudoTerminal?
    private var holder: SerialPort?
    private var watch: ReadableWatch?
    private var ticker: Task<Void, Never>?
    private let start = ContinuousClock.now

    init(_ personality: any BoardPersonality, folder: URL) {
        self.personality = personality
        linkPath = folder.appendingPathComponent("usb-DGT_DGT_Board_0001-if00").path
    }

    var now: TimeInterval {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    func plug() throws {
        let terminal = try PseudoTerminal()
        // Held open so the controlling side never reads a hang-up while nobody has the line.
        holder = try SerialPort.open(path: terminal.devicePath)
        try? FileManager.default.removeItem(atPath: linkPath)
        try FileManager.default.createSymbolicLink(atPath: linkPath, withDestinationPath: terminal.devicePath)
        self.terminal = terminal
        send(personality.linkEstablished(at: now))
        watch = ReadableWatch(descriptor: terminal.descriptor, closesDescriptor: false) { [weak self] in
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

    func unplug() {
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

    func perform(_ action: PhysicalAction) {
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
