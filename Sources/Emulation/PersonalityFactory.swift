public import Adapters
public import BoardKit
public import FoundationEssentials

/// Makes the emulated firmware of any family: the one place the simulator and the
/// tests turn a ``BoardFamily`` into a ``BoardPersonality``.
public enum PersonalityFactory {
    /// A personality of `family` advertising `name`, with `board` physically set up
    /// (`isFlipped`: Black at the near side). `retransmitInterval` replaces the ChessUp
    /// firmware's time before it resends an unacknowledged frame; `developerKey` replaces
    /// the key a Pegasus firmware accepts; `rgbLEDs` gives a Certabo or Sentio board RGB LEDs
    /// (frames marked `D`) instead of one LED per square; `cppDialect` is the dialect a Chess
    /// Peripheral Protocol board speaks (its 2024 one as OPENCHESSBOARD's firmware does).
    /// Other families ignore these.
    public static func makePersonality(
        family: BoardFamily, name: String, board: BoardSnapshot = .startingPosition, isFlipped: Bool = false,
        retransmitInterval: TimeInterval? = nil, developerKey: Data? = nil, rgbLEDs: Bool = false,
        cppDialect: ChessPeripheralAdapter.Dialect = .current
    ) -> any BoardPersonality {
        switch family {
        case .chessnut:
            ChessnutPersonality(
                name: name, board: board, isFlipped: isFlipped,
                options: .init(model: .init(advertisedName: name)))
        case .chessUp:
            ChessUpPersonality(
                name: name, board: board, isFlipped: isFlipped, options: chessUpOptions(retransmitInterval))
        case .squareOff:
            SquareOffPersonality(
                name: name, board: board, isFlipped: isFlipped,
                options: .init(variant: SquareOffAdapter.variant(forAdvertisedName: name)))
        case .dgtPegasus:
            PegasusPersonality(
                name: name, board: board, isFlipped: isFlipped,
                options: .init(acceptedDeveloperKeys: [developerKey ?? PegasusAdapter.defaultDeveloperKey]))
        case .millennium:
            MillenniumPersonality(name: name, board: board, isFlipped: isFlipped)
        case .dgt:
            DGTPersonality(name: name, board: board, isFlipped: isFlipped)
        case .certabo:
            CertaboPersonality(
                name: name, board: board, isFlipped: isFlipped, options: certaboOptions(tags: true, rgbLEDs: rgbLEDs))
        case .sentio:
            CertaboPersonality(
                name: name, board: board, isFlipped: isFlipped, options: certaboOptions(tags: false, rgbLEDs: rgbLEDs))
        case .iChessOne:
            IChessOnePersonality(name: name, board: board, isFlipped: isFlipped)
        case .chessPeripheral:
            ChessPeripheralPersonality(
                name: name, board: board, isFlipped: isFlipped,
                options: cppDialect == .acknowledged ? .openChessBoard : .init())
        }
    }

    private static func certaboOptions(tags: Bool, rgbLEDs: Bool) -> CertaboPersonality.Options {
        let marker = rgbLEDs ? CertaboWire.rgbMarker : CertaboWire.classicMarker
        return .init(recognisesPieces: tags, ledMarker: Character(UnicodeScalar(marker)))
    }

    private static func chessUpOptions(_ retransmitInterval: TimeInterval?) -> ChessUpPersonality.Options {
        var options = ChessUpPersonality.Options()
        if let retransmitInterval { options.retransmitInterval = retransmitInterval }
        return options
    }
}
