import BridgeCLI
import Dispatch

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
    if let status = BoardBridgeCLI.startBridge(
        configPath: configPath, busAddress: busAddress, environment: environment, output: StandardStreams())
    {
        exit(status)
    }
    dispatchMain()
}
exit(BoardBridgeCLI.run(arguments, environment: environment, output: StandardStreams()))
