public import BoardKit
public import FoundationEssentials

/// Per-board choices an adapter needs beyond its family.
public struct AdapterOptions: Hashable, Sendable {
    /// The advertised name, which picks a model variant (Chessnut Move, Square Off Neo).
    public var advertisedName: String?
    /// The DGT Pegasus developer key (6 bytes); `nil` uses ``PegasusAdapter/defaultDeveloperKey``.
    public var developerKey: Data?
    /// The DGT e-Board model (LEDs, battery); `nil` is ``DGTAdapter/Model/classic``.
    public var dgtModel: DGTAdapter.Model?
    /// The tags a Certabo board learned; `nil` calibrates it afresh.
    public var calibration: PieceCalibration?

    /// Options for a board advertising `advertisedName`.
    public init(
        advertisedName: String? = nil, developerKey: Data? = nil, dgtModel: DGTAdapter.Model? = nil,
        calibration: PieceCalibration? = nil
    ) {
        self.advertisedName = advertisedName
        self.developerKey = developerKey
        self.dgtModel = dgtModel
        self.calibration = calibration
    }
}

/// An adapter could not be made from the given options.
public enum AdapterFactoryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The Pegasus developer key is not 6 bytes long.
    case invalidDeveloperKey(length: Int)

    /// A readable message that never echoes the key.
    public var description: String {
        switch self {
        case .invalidDeveloperKey(let length):
            "the Pegasus developer key must be 6 bytes, got \(length)"
        }
    }
}

/// Maps a ``BoardFamily`` onto its adapter and its BLE profile: the one place that
/// knows every family, so the transport, the bridge and the CLI never switch on it.
public enum AdapterFactory {
    /// The profile of `family`, picking the variant the advertised name announces.
    public static func profile(for family: BoardFamily, advertisedName: String? = nil) -> BoardProfile {
        switch family {
        case .chessnut: ChessnutAdapter.profile
        case .chessUp: ChessUpAdapter.profile
        case .squareOff:
            SquareOffAdapter.profile(for: advertisedName.map(SquareOffAdapter.variant(forAdvertisedName:)) ?? .pro)
        case .dgtPegasus: PegasusAdapter.profile
        case .millennium: MillenniumAdapter.profile
        case .dgt: DGTAdapter.profile
        case .certabo: CertaboAdapter.profile
        case .sentio: SentioAdapter.profile
        case .iChessOne: IChessOneAdapter.profile
        case .chessPeripheral: ChessPeripheralAdapter.profile
        }
    }

    /// The speed of the serial line boards of `family` talk on (`nil` for Bluetooth LE families).
    public static func baudRate(for family: BoardFamily) -> Int? {
        switch family {
        case .dgt: DGTAdapter.baudRate
        case .certabo, .sentio: CertaboWire.baudRate
        case .chessnut, .chessUp, .squareOff, .dgtPegasus, .millennium, .iChessOne, .chessPeripheral: nil
        }
    }

    /// Whether the serial line of boards of `family` is opened with DTR low: Certabo and
    /// Sentio lines are (``CertaboWire/lowersDataTerminalReady``), DGT lines keep the line's
    /// default.
    public static func lowersDataTerminalReady(for family: BoardFamily) -> Bool {
        switch family {
        case .certabo, .sentio: CertaboWire.lowersDataTerminalReady
        case .dgt, .chessnut, .chessUp, .squareOff, .dgtPegasus, .millennium, .iChessOne, .chessPeripheral: false
        }
    }

    /// A fresh adapter for a new link to a board of `family`.
    public static func makeAdapter(
        for family: BoardFamily, options: AdapterOptions = AdapterOptions()
    ) throws(AdapterFactoryError) -> any BoardAdapter {
        switch family {
        case .chessnut:
            return ChessnutAdapter(model: options.advertisedName.map(ChessnutAdapter.Model.init) ?? .classic)
        case .chessUp:
            return ChessUpAdapter()
        case .squareOff:
            return SquareOffAdapter(
                variant: options.advertisedName.map(SquareOffAdapter.variant(forAdvertisedName:)) ?? .pro)
        case .dgtPegasus:
            do {
                return try PegasusAdapter(developerKey: options.developerKey ?? PegasusAdapter.defaultDeveloperKey)
            } catch {
                switch error {
                case .invalidDeveloperKeyLength(let length): throw .invalidDeveloperKey(length: length)
                }
            }
        case .millennium:
            return MillenniumAdapter()
        case .iChessOne:
            return IChessOneAdapter()
        case .chessPeripheral:
            return ChessPeripheralAdapter()
        case .dgt, .certabo, .sentio:
            return makeSerialAdapter(for: family, options: options)
        }
    }

    /// A fresh adapter for a new link to a board of a serial family
    /// (``BoardKit/BoardFamily/connectsOverSerialLine``, a precondition): none of them has
    /// options that can be wrong, so making one cannot fail.
    public static func makeSerialAdapter(
        for family: BoardFamily, options: AdapterOptions = AdapterOptions()
    ) -> any BoardAdapter {
        switch family {
        case .dgt: DGTAdapter(model: options.dgtModel ?? .classic)
        case .certabo: CertaboAdapter(calibration: options.calibration)
        case .sentio: SentioAdapter()
        case .chessnut, .chessUp, .squareOff, .dgtPegasus, .millennium, .iChessOne, .chessPeripheral:
            preconditionFailure("\(family.rawValue) boards are no serial boards")
        }
    }

    /// The family an advertisement belongs to, by name first, then by service UUID;
    /// `nil` when no family recognises it.
    public static func family(advertisedName: String?, serviceUUIDs: [String]) -> BoardFamily? {
        if let advertisedName {
            for family in BoardFamily.allCases
            where profile(for: family, advertisedName: advertisedName).matches(name: advertisedName, serviceUUIDs: []) {
                return family
            }
        }
        return BoardFamily.allCases.first { profile(for: $0).matches(name: nil, serviceUUIDs: serviceUUIDs) }
    }
}
