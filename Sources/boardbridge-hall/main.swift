import BridgeCLI
import FoundationEssentials
import MainLoop
import SystemCalls

// `boardbridge hall …` execs this executable with its own arguments (`HallExecutable`), so
// the command line is `boardbridge`'s: `hall [--config PATH]`, `--help` or `--version`.
let output = StandardStreams()
switch CommandLineParser.parse(Array(CommandLine.arguments.dropFirst())) {
case .success(.hall(let configPath)):
    MainLoop.activate()
    if let status = HallStart.start(
        configPath: configPath, environment: ProcessInfo.processInfo.environment, output: output)
    {
        ProcessControl.exit(status)
    }
    MainLoop.run()
case .success(.run), .success(.checkConfig), .success(.decode):
    output.writeError(
        "\(HallExecutable.name): serves only \"boardbridge hall\"; the other commands are boardbridge's\n")
    ProcessControl.exit(ExitCode.usage)
case let parsed:
    ProcessControl.exit(BoardBridgeCLI.run(parsed, environment: ProcessInfo.processInfo.environment, output: output))
}
