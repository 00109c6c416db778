// boardsim: a fake BlueZ (org.bluez on a D-Bus) hosting simulated chess boards, and `boardsim
// ctl`, the command line of its control interface. See docs/boardsim.md.
import Dispatch
import FakeBlueZ
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Writes `text` and a newline to a file descriptor at once (unbuffered, so a log file sees
/// the ready line immediately).
func writeLine(_ text: String, to descriptor: Int32) {
    var bytes = Array((text + "\n").utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written > 0 else { return }
        bytes = bytes.dropFirst(written)
    }
}

/// Prints a line on standard output.
func output(_ text: String) {
    writeLine(text, to: 1)
}

/// Prints `boardsim: text` on standard error.
func report(_ text: String) {
    writeLine("boardsim: \(text)", to: 2)
}

let command: BoardSimCommand
do {
    command = try BoardSimArguments.parse(
        Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
} catch {
    report("\(error)")
    writeLine(BoardSimArguments.usage, to: 2)
    exit(2)
}

/// Keeps the running simulator alive.
@MainActor
final class Running {
    static var simulator: FakeBlueZ?
    static var signalSources: [any DispatchSourceSignal] = []
}

switch command {
case .help:
    output(BoardSimArguments.usage)
    exit(0)

case .control(let request):
    Task { @MainActor in
        do {
            for line in try await request.execute() { output(line) }
            exit(0)
        } catch {
            report("\(error)")
            exit(1)
        }
    }
    dispatchMain()

case .run(let options):
    // A child of a test runner may inherit blocked signals: unblock them, then take them
    // through Dispatch sources for a clean exit.
    var mask = sigset_t()
    sigemptyset(&mask)
    sigaddset(&mask, SIGTERM)
    sigaddset(&mask, SIGINT)
    pthread_sigmask(SIG_UNBLOCK, &mask, nil)
    for signalNumber in [SIGTERM, SIGINT] {
        signal(signalNumber, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
        source.setEventHandler {
            MainActor.assumeIsolated {
                if let simulator = Running.simulator {
                    simulator.shutDown()
                    simulator.connection.close()
                }
                output("boardsim: stopped")
                exit(0)
            }
        }
        source.resume()
        Running.signalSources.append(source)
    }
    Task { @MainActor in
        do {
            let configuration = try options.configuration()
            let simulator = try await FakeBlueZ.start(address: options.busAddress, configuration: configuration)
            if !options.quiet { simulator.onLog = { output("boardsim: \($0)") } }
            simulator.connection.onDisconnect = { error in
                report("lost the bus: \(error)")
                exit(1)
            }
            Running.simulator = simulator
            let boards = simulator.boardStatuses.map { "\($0.id) (\($0.family))" }.joined(separator: ", ")
            output("boardsim: ready on \(options.busAddress) as \(FakeBlueZ.busName); boards: \(boards)")
        } catch {
            report("\(error)")
            exit(1)
        }
    }
    dispatchMain()
}
