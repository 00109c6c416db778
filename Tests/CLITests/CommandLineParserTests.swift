import BoardKit
import BridgeCLI
import Testing

@Suite struct CommandLineParserTests {
    @Test(arguments: [
        (["--help"], CLICommand.help),
        (["-h"], .help),
        (["check-config", "--help"], .help),
        (["frobnicate", "-h"], .help),
        (["--version"], .version),
        (["check-config"], .checkConfig(configPath: nil)),
        (["check-config", "--config", "/etc/b.yaml"], .checkConfig(configPath: "/etc/b.yaml")),
        (["check-config", "--config=hall.yaml"], .checkConfig(configPath: "hall.yaml")),
        (["check-config", "--config", "-odd-name.yaml"], .checkConfig(configPath: "-odd-name.yaml")),
        (["run"], .run(configPath: nil, busAddress: nil)),
        (
            ["run", "--config", "hall.yaml", "--bus=unix:path=/tmp/bus"],
            .run(configPath: "hall.yaml", busAddress: "unix:path=/tmp/bus")
        ),
        (["decode", "--family", "chessnut", "01 24", "0a"], .decode(family: .chessnut, hex: ["01 24", "0a"])),
        (["decode", "--family=ChessUp"], .decode(family: .chessUp, hex: [])),
    ])
    func parsesValidCommandLines(arguments: [String], expected: CLICommand) {
        #expect(CommandLineParser.parse(arguments) == .success(expected))
    }

    @Test(arguments: [
        ([], "no command given (commands: run, check-config, decode, hall)"),
        (["frobnicate"], #"unknown command "frobnicate" (commands: run, check-config, decode, hall)"#),
        (["run", "--bus"], "--bus needs a value"),
        (["run", "--verbose"], #"unknown option "--verbose" for run"#),
        (["decode", "01"], "decode needs --family NAME"),
        (
            ["decode", "--family", "fritz"],
            #"unknown family "fritz", expected one of chessnut, chessup, squareoff, pegasus, dgt, millennium, certabo, sentio, ichessone, cpp"#
        ),
        (["decode", "--family", "chessnut", "--family", "chessup"], "--family given more than once"),
        (["--verbose"], #"unknown option "--verbose""#),
        (["--version", "extra"], #"unexpected argument "extra" after --version"#),
        (["check-config", "--config"], "--config needs a value"),
        (["check-config", "--config="], "--config needs a value"),
        (["check-config", "--config", "a", "--config", "b"], "--config given more than once"),
        (["check-config", "--strict"], #"unknown option "--strict" for check-config"#),
        (["check-config", "config.yaml"], #"unexpected argument "config.yaml" for check-config"#),
    ])
    func reportsUsageErrors(arguments: [String], message: String) {
        #expect(CommandLineParser.parse(arguments) == .failure(UsageError(message)))
    }

    @Test func usageErrorPointsToHelp() {
        #expect(
            UsageError("no command given").description
                == "boardbridge: no command given\nRun 'boardbridge --help' for usage.")
    }

    @Test func defaultConfigPathPrefersTheWorkingDirectory() {
        #expect(ConfigLocation.resolve("x.yaml", fileExists: { _ in false }) == "x.yaml")
        #expect(ConfigLocation.resolve(nil, fileExists: { $0 == "config.yaml" }) == "config.yaml")
        #expect(ConfigLocation.resolve(nil, fileExists: { _ in false }) == "/etc/boardbridge/config.yaml")
    }

    @Test func helpListsEveryCommandAndTheExitCodes() {
        let help = BoardBridgeCLI.helpText
        for command in CommandLineParser.commands { #expect(help.contains("boardbridge \(command)")) }
        #expect(help.contains("--version"))
        for code in ["64", "70", "78"] { #expect(help.contains(code)) }
    }

    @Test func versionLineNamesTheProgram() {
        #expect(BoardBridgeCLI.versionText.hasPrefix("boardbridge "))
        #expect(BoardBridgeCLI.versionText.split(separator: " ").last?.split(separator: ".").count == 3)
    }
}
