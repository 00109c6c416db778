import FoundationEssentials

/// What `boardsim` was asked to do.
public enum BoardSimCommand: Equatable, Sendable {
    /// Serve `org.bluez` (the default).
    case run(BoardSimRunOptions)
    /// Send one control request (`boardsim ctl …`).
    case control(ControlRequest)
    /// Print the usage.
    case help
}

/// The options of `boardsim [run]`.
public struct BoardSimRunOptions: Equatable, Sendable {
    /// The bus address (`--bus`, else `$DBUS_SYSTEM_BUS_ADDRESS`).
    public var busAddress: String
    /// A JSON configuration file (`--config`).
    public var configurationPath: String?
    /// Adapters from `--adapter` (added to the file's).
    public var adapters: [AdapterConfiguration] = []
    /// Boards from `--board` (added to the file's).
    public var boards: [BoardConfiguration] = []
    /// `--autoplay SECONDS`: autoplay every board that has no autoplay setting of its own.
    public var autoplay: Double?
    /// `--bluez-version`: overrides the file's.
    public var bluezVersion: String?
    /// `--no-cache`: GATT objects are removed on disconnect.
    public var noCache = false
    /// `--quiet`: only errors and the ready line are printed.
    public var quiet = false

    /// Options for `busAddress`, nothing else set.
    public init(busAddress: String) {
        self.busAddress = busAddress
    }

    /// The configuration file (if any) with the command-line adapters, boards and overrides
    /// applied.
    ///
    /// - Throws: ``FakeBlueZError/invalidConfiguration(_:)`` for an unreadable or invalid file.
    public func configuration() throws(FakeBlueZError) -> FakeBlueZConfiguration {
        var configuration = FakeBlueZConfiguration()
        if let configurationPath {
            let data: Data
            do {
                data = try Data(contentsOf: URL(filePath: configurationPath))
            } catch {
                throw .invalidConfiguration("cannot read \(configurationPath): \(error)")
            }
            configuration = try FakeBlueZConfiguration(json: data)
        }
        for adapter in adapters where !configuration.adapters.contains(where: { $0.name == adapter.name }) {
            configuration.adapters.append(adapter)
        }
        configuration.boards += boards
        if configuration.adapters.isEmpty { configuration.adapters = [AdapterConfiguration(name: "hci0")] }
        // A board may name an adapter nobody configured: create it.
        for board in configuration.boards where !configuration.adapters.contains(where: { $0.name == board.adapter }) {
            configuration.adapters.append(AdapterConfiguration(name: board.adapter))
        }
        if let autoplay {
            for index in configuration.boards.indices where configuration.boards[index].autoplay == nil {
                configuration.boards[index].autoplay = autoplay
            }
        }
        if let bluezVersion { configuration.behavior.bluezVersion = bluezVersion }
        if noCache { configuration.behavior.gattCache = false }
        try configuration.behavior.validate()
        return configuration
    }
}

/// Parsing `boardsim`'s command line.
public enum BoardSimArguments {
    /// The usage text.
    public static let usage = """
        usage: boardsim [run] [--bus ADDRESS] [--config FILE.json] [--adapter SPEC]... [--board SPEC]...
                        [--autoplay SECONDS] [--bluez-version 5.83] [--no-cache] [--quiet]
               boardsim ctl [--bus ADDRESS] VERB [ARGUMENTS...]

        Serves org.bluez on the bus (default: $DBUS_SYSTEM_BUS_ADDRESS) with simulated chess boards.
          --board 'family=chessnut,name=Chessnut Air,address=AA:BB:CC:00:00:01,adapter=hci0,rssi=-50'
          --adapter hci1   or   --adapter 'name=hci1,address=00:1A:7D:DA:71:11,powered=false'

        ctl verbs (BOARD: id, address, device path or unique name):
          list                                 adapters and boards, one JSON object per line
          play BOARD MOVE... [--pace SECONDS]  play UCI moves by hand (validated first)
          lift BOARD SQUARE | place BOARD SQUARE PIECE | knock BOARD SQUARE
          reset BOARD [FEN]                    set the board up (starting position by default)
          drop BOARD [--reason remote|timeout] the board drops its link
          fail-connects BOARD N [--error NAME] the next N connects fail (abort, timeout, in-progress,
                                               already, canceled, old-abort, io-error, success)
          power ADAPTER on|off                 power an adapter
          battery BOARD PERCENT [--charging]   set the battery
          button BOARD NAME                    press a button
          lose BOARD N                         the board's next N notifications are lost
          rssi BOARD DBM | present BOARD on|off | autoplay BOARD SECONDS|off
          add-board SPEC | remove-board BOARD | services-changed BOARD
          writes BOARD [--clear]               received writes, one JSON object per line
          violations BOARD                     protocol-violation counters (JSON)
          board BOARD                          FEN placement of the physical board
          position BOARD                       FEN of the tracked game position
          radio-times [SINCE]                  each LE connect attempt's radio times (JSON)
        """

    /// Parses `arguments` (without the program name).
    ///
    /// - Throws: ``FakeBlueZError/invalidConfiguration(_:)`` describing the problem.
    public static func parse(
        _ arguments: [String], environment: [String: String]
    ) throws(FakeBlueZError)
        -> BoardSimCommand
    {
        var rest = arguments[...]
        if rest.first == "--help" || rest.first == "-h" || rest.first == "help" { return .help }
        if rest.first == "ctl" {
            rest.removeFirst()
            return .control(try ControlRequest.parse(Array(rest), environment: environment))
        }
        if rest.first == "run" { rest.removeFirst() }
        var options = BoardSimRunOptions(busAddress: environment["DBUS_SYSTEM_BUS_ADDRESS"] ?? "")
        while let argument = rest.popFirst() {
            func value() throws(FakeBlueZError) -> String {
                guard let value = rest.popFirst() else { throw .invalidConfiguration("\(argument) needs a value") }
                return value
            }
            switch argument {
            case "--bus": options.busAddress = try value()
            case "--config": options.configurationPath = try value()
            case "--adapter": options.adapters.append(try AdapterConfiguration(specification: try value()))
            case "--board": options.boards.append(try BoardConfiguration(specification: try value()))
            case "--autoplay": options.autoplay = try SpecificationParser.double(try value(), key: "--autoplay")
            case "--bluez-version": options.bluezVersion = try value()
            case "--no-cache": options.noCache = true
            case "--quiet": options.quiet = true
            case "--help", "-h": return .help
            default: throw .invalidConfiguration("unknown argument '\(argument)'")
            }
        }
        guard !options.busAddress.isEmpty else {
            throw .invalidConfiguration("no bus: pass --bus ADDRESS or set DBUS_SYSTEM_BUS_ADDRESS")
        }
        return .run(options)
    }
}
