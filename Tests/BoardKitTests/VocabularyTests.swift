import BoardKit
import Testing

@Suite struct VocabularyTests {
    @Test func squaresRoundTripTheirNames() {
        for square in Square.allCases {
            #expect(Square(square.name) == square)
        }
        #expect(Square.a1.rawValue == 0)
        #expect(Square.h8.rawValue == 63)
        #expect(Square("E4") == .e4)
        #expect(Square.e4.file == 4 && Square.e4.rank == 3)
        #expect(Square.a1.rotated == .h8)
    }

    @Test(arguments: ["", "e", "e9", "i1", "e44", "4e", "é4"])
    func rejectsInvalidSquareNames(_ name: String) {
        #expect(Square(name) == nil)
    }

    @Test func movesParseUCI() {
        #expect(BoardMove(uci: "e2e4") == BoardMove(from: .e2, to: .e4))
        #expect(BoardMove(uci: "e7e8q")?.promotion == .queen)
        #expect(BoardMove(uci: "e7e8k") == nil)
        #expect(BoardMove(uci: "e7e8") != nil)
        #expect(BoardMove(uci: "z2e4") == nil)
        #expect(BoardMove(from: .a7, to: .a8, promotion: .knight).uci == "a7a8n")
    }

    /// The placement is written straight into its string's storage (#33): any board, the
    /// empty one and a full one included, reads back the same (seeded, 2,000 boards).
    @Test func everyPlacementReadsBackAsWritten() throws {
        var state: UInt64 = 0x33F3_A1B2
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        let pieces = PieceColor.allCases.flatMap { color in PieceKind.allCases.map { Piece(color, $0) } }
        var boards = [BoardSnapshot(), BoardSnapshot.startingPosition]
        var full = BoardSnapshot()
        for square in Square.allCases { full[square] = pieces[square.rawValue % pieces.count] }
        boards.append(full)
        for _ in 0..<2_000 {
            var board = BoardSnapshot()
            let density = next() % 65
            for square in Square.allCases where next() % 64 < density {
                board[square] = pieces[Int(next() % UInt64(pieces.count))]
            }
            boards.append(board)
        }
        #expect(BoardSnapshot().fenPlacement == "8/8/8/8/8/8/8/8")
        for board in boards {
            let text = board.fenPlacement
            #expect(BoardSnapshot(fenPlacement: text) == board, "\(text)")
            #expect(text.utf8.count <= 71)
        }
    }

    @Test func snapshotFENPlacementRoundTrips() throws {
        let start = BoardSnapshot.startingPosition
        #expect(start.fenPlacement == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR")
        let parsed = try #require(
            BoardSnapshot(fenPlacement: "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e3 0 1"))
        #expect(parsed[.e4] == Piece(.white, .pawn))
        #expect(parsed[.e2] == nil)
        #expect(BoardSnapshot(fenPlacement: "8/8/8") == nil)
        #expect(BoardSnapshot(fenPlacement: "9/8/8/8/8/8/8/8") == nil)
        #expect(BoardSnapshot(fenPlacement: "ppppppppp/8/8/8/8/8/8/8") == nil)
        #expect(start.occupancy == OccupancyMap.startingPosition)
        #expect(start.rotated.rotated == start)
        #expect(start.rotated[.a1] == Piece(.black, .king) || start.rotated[.a1] == Piece(.black, .rook))
    }

    @Test func occupancyRotates() {
        var map = OccupancyMap()
        map.insert(.a1)
        map.insert(.c3)
        #expect(map.rotated.squares == [Square.f6, .h8])
        #expect(map.count == 2)
        map.remove(.a1)
        #expect(map.squares == [.c3])
    }

    @Test func capabilitiesHaveStableNames() {
        let caps: BoardCapabilities = [.pieceIdentity, .batteryReporting]
        #expect(caps.names == ["piece_identity", "battery_reporting"])
    }

    @Test func familiesParseFromConfigNames() {
        #expect(BoardFamily(rawValue: "chessup") == .chessUp)
        #expect(BoardFamily(rawValue: "pegasus") == .dgtPegasus)
        #expect(BoardFamily(rawValue: "ichessone") == .iChessOne)
        #expect(BoardFamily(rawValue: "cpp") == .chessPeripheral)
        #expect(BoardFamily.allCases.count == 10)
        #expect(BoardFamily(rawValue: "dgt") == .dgt)
        #expect(BoardFamily.bluetoothLE.count == 7)
    }
}
