import BridgeCLI
import MainLoop
import SystemCalls

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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
case .success(.hall(let configPath)):
    MainLoop.activate()
    if let status = BoardBridgeCLI.startHall(
        configPath: configPath, environment: environment, output: StandardStreams())
    {
        ProcessControl.exit(status)
    }
    MainLoop.run()
case let parsed:
    ProcessControl.exit(BoardBridgeCLI.run(parsed, environment: environment, output: StandardStreams()))
}
