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
    ])
    func parsesValidCommandLines(arguments: [String], expected: CLICommand) {
        #expect(CommandLineParser.parse(arguments) == .success(expected))
    }

    @Test(arguments: [
        ([], "no command given (commands: check-config)"),
        (["frobnicate"], #"unknown command "frobnicate" (commands: check-config)"#),
        (["run"], #"unknown command "run" (commands: check-config)"#),
        (["decode", "--family", "chessnut"], #"unknown command "decode" (commands: check-config)"#),
        (["--verbose"], #"unknown option "--verbose""#),
        (["--version", "extra"], #"unexpected argument "extra" after --version"#),
        (["check-config", "--config"], "--config needs a path"),
        (["check-config", "--config="], "--config needs a path"),
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

    @Test func helpListsOnlyWorkingCommandsAndTheExitCodes() {
        let help = BoardBridgeCLI.helpText
        #expect(help.contains("check-config"))
        #expect(help.contains("--version"))
        #expect(!help.contains("decode"))
        #expect(!help.contains("boardbridge run"))
        for code in ["64", "78"] { #expect(help.contains(code)) }
    }

    @Test func versionLineNamesTheProgram() {
        #expect(BoardBridgeCLI.versionText.hasPrefix("boardbridge "))
        #expect(BoardBridgeCLI.versionText.split(separator: " ").last?.split(separator: ".").count == 3)
    }
}
