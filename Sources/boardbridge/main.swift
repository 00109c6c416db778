import BridgeCLI
import FoundationEssentials
import MainLoop
import SystemCalls

let environment = ProcessInfo.processInfo.environment
// Parsed once: `run` needs the main loop started here; every other command runs and exits.
switch CommandLineParser.parse(Array(CommandLine.arguments.dropFirst())) {
case .success(.run(let configPath, let busAddress)):
    // The bridge's descriptors are watched by its own main-thread loop (see MainLoop).
    MainLoop.activate()
    if let status = BoardBridgeCLI.startBridge(
        configPath: configPath, busAddress: busAddress, environment: environment, output: StandardStreams())
    {
        ProcessControl.exit(status)
    }
    MainLoop.run()
case .success(.hall):
    // The hall is an executable of its own (its web server and push libraries stay out of
    // the daemon): this process becomes it, with the same arguments.
    ProcessControl.exit(HallExecutable.exec(arguments: CommandLine.arguments, output: StandardStreams()))
case let parsed:
    ProcessControl.exit(BoardBridgeCLI.run(parsed, environment: environment, output: StandardStreams()))
}
