import BridgeCLI

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

exit(
    BoardBridgeCLI.run(
        Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment,
        output: StandardStreams()))
