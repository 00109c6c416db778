import FoundationEssentials
import MainLoop
import Serial

/// A DGT e-Board's USB / serial line in the simulator: a pseudo-terminal with a stable name
/// (a symbolic link, as `/dev/serial/by-id/…` is). Unplugging closes the pseudo-terminal and
/// removes the name (the host reads a hang-up, the path leads nowhere); plugging in opens a
/// new pseudo-terminal and points the name at it.
@MainActor
final class SimulatedTerminalLine {
    /// The line's stable name.
    let linkPath: String
    private weak var board: SimulatedBoard?
    private var terminal: PseudoTerminal?
    private var holder: SerialPort?
    private var watch: DescriptorWatch?

    init(board: SimulatedBoard, linkPath: String) {
        self.board = board
        self.linkPath = linkPath
    }

    /// The pseudo-terminal's device while plugged in.
    var devicePath: String? { terminal?.devicePath }

    /// Plugs the board in (nothing when it is).
    func plug() throws(FakeBlueZError) {
        guard terminal == nil, let board else { return }
        let opened: PseudoTerminal
        do {
            opened = try PseudoTerminal()
            // Held open, so the simulator never reads a hang-up while no host has the line.
            holder = try SerialPort.open(path: opened.devicePath)
        } catch {
            throw .invalidConfiguration("cannot open a pseudo-terminal: \(error)")
        }
        try? FileManager.default.removeItem(atPath: linkPath)
        do {
            try FileManager.default.createSymbolicLink(atPath: linkPath, withDestinationPath: opened.devicePath)
        } catch {
            holder?.close()
            holder = nil
            opened.close()
            throw .invalidConfiguration("cannot create \(linkPath): \(error)")
        }
        terminal = opened
        watch = DescriptorWatch(descriptor: opened.descriptor, closesDescriptor: false) { [weak self] in
            self?.readable()
        }
        board.sim.log("board \(board.id): pty \(opened.devicePath) at \(linkPath) (plugged in)")
        board.serialLineOpened { [weak self] bytes in _ = self?.terminal?.write(Array(bytes)) }
    }

    /// Unplugs the board (nothing when it is not plugged in).
    func unplug() {
        guard let terminal else { return }
        watch?.cancel()
        watch = nil
        try? FileManager.default.removeItem(atPath: linkPath)
        holder?.close()
        holder = nil
        terminal.close()
        self.terminal = nil
        if let board {
            board.sim.log("board \(board.id): unplugged (\(linkPath) gone)")
            board.serialLineClosed()
        }
    }

    private func readable() {
        guard let terminal else { return }
        let bytes = terminal.read()
        guard !bytes.isEmpty else { return }
        board?.serialReceived(bytes)
    }
}

/// The firmware side of an `rfcomm` board's Classic device: the bytes go to and come from
/// the ``SimulatedBoard``, so every control verb works as for the other families.
@MainActor
final class SimulatedClassicFirmware: SerialBoardPersonality {
    private weak var board: SimulatedBoard?

    init(board: SimulatedBoard) {
        self.board = board
    }

    func linkOpened(send: @escaping @MainActor (Data) -> Void) {
        board?.serialLineOpened(send: send)
    }

    func received(_ bytes: Data) {
        board?.serialReceived(Array(bytes))
    }

    func linkClosed() {
        board?.serialLineClosed()
    }
}

extension SimulatedBoard {
    /// Whether the host reaches the board over a serial line (`pty` or `rfcomm`), not GATT.
    var isSerial: Bool { configuration.effectiveTransport != "ble" }

    /// The default stable name of a `pty` board's line.
    static func defaultLinkPath(id: String) -> String {
        let safe = id.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }
        return FileManager.default.temporaryDirectory.appendingPathComponent(
            "boardsim-\(ProcessInfo.processInfo.processIdentifier)-\(String(safe))"
        ).path
    }

    /// The line is up: the firmware talks through `send` until ``serialLineClosed()``.
    func serialLineOpened(send: @escaping @MainActor (Data) -> Void) {
        serialSend = send
        linkUp()
        subscribed()
    }

    /// The host wrote `bytes` on the line: logged, answered by the firmware.
    func serialReceived(_ bytes: [UInt8]) {
        emit(receiveWrite(bytes, characteristic: profile.writeCharacteristicUUID.lowercased(), type: "serial"))
    }

    /// The line is down.
    func serialLineClosed() {
        serialSend = nil
        linkDown()
    }

    /// Switches a serial board on or off: a `pty` board is plugged in or unplugged, an
    /// `rfcomm` board answers pages or not (and its link drops).
    func setSerialPresent(_ present: Bool) throws(FakeBlueZError) {
        if let terminalLine {
            if present { try terminalLine.plug() } else { terminalLine.unplug() }
        } else if let classicDevice {
            classicDevice.isPresent = present
            if !present { classicDevice.drop(reason: "switched off") }
        }
    }

    /// The link drops once: a `pty` board's cable is pulled and put back at once, an
    /// `rfcomm` board's link ends (the host reads the end of the stream).
    func dropSerialLink() throws(FakeBlueZError) {
        if let terminalLine {
            terminalLine.unplug()
            try terminalLine.plug()
        } else {
            classicDevice?.drop(reason: "link lost")
        }
    }
}
