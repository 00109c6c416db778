import Adapters
import BoardKit
public import FoundationEssentials

extension ChessUpPersonality {
    /// The host wrote `bytes`: one or more commands (reference §2.4), answered like the firmware.
    ///
    /// - `21` / `23`: acknowledge the oldest outstanding `A3` / `97` frame (no reply).
    /// - `67` or `67 00`: the `67` state frame of the board's game.
    /// - `B9` + 11 bytes: settings; mode 5 opens a phoneOTB session and starts a new game,
    ///   any other mode closes the session.
    /// - `99 from to`: show a move → `22`. `97 p`: the host's promotion choice → `23`.
    /// - `66 …` (the rest of the write): load a position → `B1`.
    /// - `50`: start the `FD FD` occupancy stream (and send the current occupancy).
    /// - `B0`: whether the pieces stand in the starting position → `B0 00|01`.
    /// - `64`: reset the game. `52 r`, `B6 c`: game end, result. `CA`, `10 …`, `B3 …`, `B4 …`:
    ///   accepted without a reply.
    ///
    /// An unknown opcode or a truncated command counts as a malformed command and ends the
    /// parsing of that write.
    public mutating func handleWrite(_ bytes: Data, at time: TimeInterval) -> [Data] {
        let command = Array(bytes)
        var replies: [Data] = []
        var index = 0
        while index < command.count {
            guard let consumed = handle(command[index...], replies: &replies) else {
                violations.malformedCommands += 1
                break
            }
            index += consumed
        }
        return isLinkUp ? replies : []
    }

    /// Handles the command at the start of `bytes`; returns how many bytes it took, or `nil`
    /// when it is unknown or truncated.
    private mutating func handle(_ bytes: ArraySlice<UInt8>, replies: inout [Data]) -> Int? {
        let start = bytes.startIndex
        let remaining = bytes.count
        func byte(_ offset: Int) -> UInt8 { bytes[start + offset] }
        switch bytes[start] {
        case ChessUpWire.moveAck, ChessUpWire.promotionAck:
            acknowledge(bytes[start])
            return 1
        case ChessUpWire.stateOpcode:
            replies.append(wireState().frame)
            return remaining > 1 && byte(1) == 0 ? 2 : 1
        case ChessUpWire.settingsOpcode:
            guard remaining >= 12 else { return nil }
            if byte(1) == ChessUpWire.phoneOTBMode {
                isSessionOpen = true
                sessionOpenCount += 1
                outstanding.removeAll()
                startNewGame()
            } else {
                isSessionOpen = false
            }
            return 12
        case ChessUpWire.showMoveOpcode:
            guard remaining >= 3, let from = square(wire: byte(1)), let to = square(wire: byte(2)), from != to else {
                return nil
            }
            shownMove = BoardMove(from: from, to: to)
            replies.append(Data([ChessUpWire.showMoveAck]))
            return 3
        case ChessUpWire.promotionOpcode:
            guard remaining >= 2, ChessUpWire.promotionKind(code: byte(1)) != nil else { return nil }
            replies.append(Data([ChessUpWire.promotionAck]))
            return 2
        case ChessUpWire.loadPositionOpcode:
            guard var loaded = FirmwareGame(loadFrameBody: bytes.dropFirst()) else { return nil }
            if isFlipped {
                loaded.pieces = loaded.pieces.rotated
                loaded.enPassant = loaded.enPassant?.rotated
            }
            game = loaded
            undoHistory = []
            resetMoveTracking()
            replies.append(Data([ChessUpWire.loadCompleteOpcode]))
            return remaining
        case ChessUpWire.enableOccupancyOpcode:
            streamsOccupancy = true
            replies.append(occupancyFrame())
            return 1
        case ChessUpWire.startPositionOpcode:
            let inStart = occupancy == OccupancyMap.startingPosition
            replies.append(Data([ChessUpWire.startPositionOpcode, inStart ? 1 : 0]))
            return 1
        case 0x64:
            startNewGame()
            return 1
        case 0x52, 0xB6:
            return remaining >= 2 ? 2 : nil
        case 0xCA:
            return 1
        case 0x10, 0xB3, 0xB4:
            return remaining
        default:
            return nil
        }
    }

    /// The board's game as the wire sees it (rotated on a flipped board).
    private func wireState() -> ChessUpState {
        var state = game.state
        if isFlipped {
            state.pieces = state.pieces.rotated
            if let square = game.enPassant?.rotated { state.enPassantByte = UInt8(square.rawValue) }
        }
        return state
    }
}
