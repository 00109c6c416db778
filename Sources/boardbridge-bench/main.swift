import Foundation

// boardbridge-bench: see BenchRunner and docs/benchmarks.md.
let status = await BenchRunner.main(arguments: Array(CommandLine.arguments.dropFirst()))
exit(status)
