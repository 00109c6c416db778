import Foundation

// boardbridge-bench: see BenchRunner and docs/benchmarks.md.
if CommandLine.arguments.dropFirst().first == WakeupSender.argument {
    // The bench started itself as the wake-up floor's sender (see WakeupFloor).
    exit(WakeupSender.main(arguments: Array(CommandLine.arguments.dropFirst(2))))
}
let status = await BenchRunner.main(arguments: Array(CommandLine.arguments.dropFirst()))
exit(status)
