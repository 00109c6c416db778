import BridgeCLI
import MainLoop

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
let environment = ProcessInfo.processInfo.environment
if case .success(.run(let configPath, let busAddress)) = CommandLineParser.parse(arguments) {
    // The bridge's descriptors are watched by its own main-thread loop (see MainLoop).
    MainLoop.activate()
    if let status = BoardBridgeCLI.startBridge(
        configPath: configPath, busAddress: busAddress, environment: environment, output: StandardStreams())
    {
        exit(status)
    }
    MainLoop.run()
}
if case .success(.hall(let configPath)) = CommandLineParser.parse(arguments) {
    MainLoop.activate()
    if let status = BoardBridgeCLI.startHall(
        configPath: configPath, environment: environment, output: StandardStreams())
    {
        exit(status)
    }
    MainLoop.run()
}
exit(BoardBridgeCLI.run(arguments, environment: environment, output: StandardStreams()))
