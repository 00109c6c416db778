import Foundation
import Serial
import Testing

/// The termios wrapper against a real pseudo-terminal (the kernel's own serial line
/// driver), not a mock.
@Suite struct SerialPortTests {
    /// Reads from `read` until `count` bytes came or 2 000 tries passed (no timing assumed).
    static func collect(_ count: Int, _ read: () throws -> [UInt8]) rethrows -> [UInt8] {
        var bytes: [UInt8] = []
        var tries = 0
        while bytes.count < count, tries < 2000 {
            let piece = try read()
            if piece.isEmpty {
                tries += 1
                usleep(1000)
            }
            bytes += piece
        }
        return bytes
    }

    @Test func opensRaw9600EightNOne() throws {
        let terminal = try PseudoTerminal()
        let port = try SerialPort.open(path: terminal.devicePath)
        let settings = try port.settings()
        #expect(settings.baudRate == 9600)
        #expect(settings.eightDataBits && !settings.parity && !settings.twoStopBits)
        #expect(!settings.lineDiscipline)
    }

    @Test func bytesPassBothWaysUnchanged() throws {
        let terminal = try PseudoTerminal()
        let port = try SerialPort.open(path: terminal.devicePath)
        #expect(try port.read().isEmpty)  // non-blocking: nothing there yet
        let all = [UInt8](0...255)
        #expect(terminal.write(all) == all.count)
        #expect(try Self.collect(all.count) { try port.read() } == all)
        #expect(try port.write(all) == all.count)
        #expect(Self.collect(all.count) { terminal.read() } == all)
    }

    /// Lowering DTR (Certabo and Sentio lines) on a line without modem control lines, as a
    /// pseudo-terminal is, opens it all the same: the line says it has no DTR to read.
    @Test func aLineWithoutModemLinesOpensWithDTRLowered() throws {
        let terminal = try PseudoTerminal()
        let port = try SerialPort.open(path: terminal.devicePath, baudRate: .b38400, lowersDataTerminalReady: true)
        #expect(try port.dataTerminalReady() == nil)
        #expect(try port.settings().baudRate == 38400)
        #expect(terminal.write([0x3A]) == 1)
        #expect(try Self.collect(1) { try port.read() } == [0x3A])
    }

    @Test func aStableLinkNameLeadsToTheDevice() throws {
        let terminal = try PseudoTerminal()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("serial-\(getpid())-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let link = folder.appendingPathComponent("usb-DGT_DGT_e-Board-if00").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: terminal.devicePath)
        let port = try SerialPort.open(path: link)
        #expect(port.path == link)
        #expect(port.devicePath == SerialPort.resolve(terminal.devicePath))
    }

    @Test func aMissingDeviceIsNamedAndCountsAsGone() {
        #expect(SerialPort.resolve("/dev/serial/by-id/no-such-board") == nil)
        do {
            _ = try SerialPort.open(path: "/dev/serial/by-id/no-such-board")
            Issue.record("opened a missing device")
        } catch {
            #expect(error.description.hasPrefix("open /dev/serial/by-id/no-such-board: "))
            #expect(error.deviceIsGone)
        }
    }

    @Test func unpluggingIsAnErrorOnTheNextRead() throws {
        let terminal = try PseudoTerminal()
        let port = try SerialPort.open(path: terminal.devicePath)
        terminal.write([0x86])
        #expect(try Self.collect(1) { try port.read() } == [0x86])
        terminal.close()
        #expect(throws: SerialError.self) { _ = try Self.collect(1) { try port.read() } }
    }
}
