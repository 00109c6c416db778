import BoardKit
import Chess
import Foundation
import Kernel
import Testing

@testable import Bridge
@testable import Contract

@Suite struct CommandParserTests {
    let parser = CommandParser()

    struct Valid: Sendable, CustomTestStringConvertible {
        let payload: String
        var name: String? = nil
        let command: BridgeCommand
        var testDescription: String { (name.map { "set/\($0) " } ?? "set ") + payload }
    }

    static let valid: [Valid] = [
        Valid(
            payload: #"{"leds":{"squares":["e2","e4"],"style":"move"}}"#,
            command: .board(.indicate(squares: [.e2, .e4], style: .move))),
        Valid(
            payload: #"{"leds":{"squares":"e2 E4,e2"}}"#,
            command: .board(.indicate(squares: [.e2, .e4], style: .highlight))),
        Valid(payload: #"{"leds":["a1","h8"]}"#, command: .board(.indicate(squares: [.a1, .h8], style: .highlight))),
        Valid(payload: #"{"leds":"clear"}"#, command: .board(.clearIndications)),
        Valid(payload: #"{"leds":[]}"#, command: .board(.clearIndications)),
        Valid(payload: #"{"leds":{"squares":[],"style":"alert"}}"#, command: .board(.clearIndications)),
        Valid(payload: "clear", name: "leds", command: .board(.clearIndications)),
        Valid(payload: "d4, d5", name: "leds", command: .board(.indicate(squares: [.d4, .d5], style: .highlight))),
        Valid(
            payload: #"{"squares":["c3"],"style":"hint"}"#, name: "leds",
            command: .board(.indicate(squares: [.c3], style: .hint))),
        Valid(payload: #"{"request":"state"}"#, command: .board(.requestState)),
        Valid(payload: #"{"request":"battery"}"#, command: .board(.requestBattery)),
        Valid(payload: "", name: "request", command: .board(.requestState)),
        Valid(payload: "battery\n", name: "request", command: .board(.requestBattery)),
        Valid(payload: #"{"session":"start"}"#, command: .board(.startSession)),
        Valid(payload: "", name: "session", command: .board(.startSession)),
        Valid(payload: #"{"move":"e2e4"}"#, command: .board(.executeMove(uci: "e2e4"))),
        Valid(payload: #"{"move":"E7E8Q"}"#, command: .board(.executeMove(uci: "e7e8q"))),
        Valid(payload: "g1f3", name: "move", command: .board(.executeMove(uci: "g1f3"))),
        Valid(payload: #"{"new_game":{}}"#, command: .game(.newGame(.init()))),
        Valid(payload: "", name: "new_game", command: .game(.newGame(.init()))),
        Valid(
            payload:
                #"{"new_game":{"white":"Doe, J","black":"Roe, R","event":"Club ch","site":"Hall A","round":3,"board":"7","time_control":"40/5400+30:1800+30","tags":{"WhiteElo":"2100","ECO":"C20"}}}"#,
            command: .game(
                .newGame(
                    .init(
                        tags: .init(
                            event: "Club ch", site: "Hall A", round: "3", board: "7", white: "Doe, J", black: "Roe, R",
                            extra: [.init(name: "WhiteElo", value: "2100"), .init(name: "ECO", value: "C20")]),
                        timeControl: try! TimeControl(pgn: "40/5400+30:1800+30"))))),
        Valid(
            payload: #"{"new_game":{"fen":" 8/8/8/4k3/8/8/8/4K2R w K - 0 1 ","time_control":"*180"}}"#,
            command: .game(
                .newGame(
                    .init(
                        timeControl: try! TimeControl(pgn: "*180"),
                        position: try! Position(fen: "8/8/8/4k3/8/8/8/4K2R w K - 0 1"))))),
        Valid(
            payload: #"{"position":"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"}"#,
            command: .game(
                .setPosition(try! Position(fen: "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1")))),
        Valid(
            payload: "8/8/8/4k3/8/8/8/4K3 w - -", name: "position",
            command: .game(.setPosition(try! Position(fen: "8/8/8/4k3/8/8/8/4K3 w - -")))),
        Valid(payload: #"{"takeback":1}"#, command: .game(.takeback(plies: 1))),
        Valid(payload: #"{"leds":"last_move"}"#, command: .game(.ledPattern(.lastMove))),
        Valid(payload: "check", name: "leds", command: .game(.ledPattern(.check))),
        Valid(payload: "off", name: "leds", command: .game(.ledPattern(.off))),
        Valid(payload: #"{"takeback":null}"#, command: .game(.takeback(plies: 1))),
        Valid(payload: "", name: "takeback", command: .game(.takeback(plies: 1))),
        Valid(payload: "4", name: "takeback", command: .game(.takeback(plies: 4))),
        Valid(
            payload: #"{"resolve":["e2e4","e7e5"]}"#, command: .game(.resolve(moves: ["e2e4", "e7e5"], ply: nil))),
        Valid(
            payload: #"{"resolve":{"moves":["e4","Nf6","O-O"],"ply":12}}"#,
            command: .game(.resolve(moves: ["e4", "Nf6", "O-O"], ply: 12))),
        Valid(payload: "e4 e5, Nf3", name: "resolve", command: .game(.resolve(moves: ["e4", "e5", "Nf3"], ply: nil))),
        Valid(
            payload: #"{"moves":"e7e8q","ply":null}"#, name: "resolve",
            command: .game(.resolve(moves: ["e7e8q"], ply: nil))),
        Valid(payload: #"{"clock":"pause"}"#, command: .game(.pauseClock)),
        Valid(payload: #"{"clock":{"action":"resume"}}"#, command: .game(.resumeClock)),
        Valid(payload: "resume", name: "clock", command: .game(.resumeClock)),
        Valid(
            payload: #"{"clock":{"action":"adjust","white":300,"black":290.5}}"#,
            command: .game(.adjustClock(white: 300, black: 290.5))),
        Valid(
            payload: #"{"clock":{"action":"adjust","black":60}}"#, command: .game(.adjustClock(white: nil, black: 60))),
        Valid(payload: #"{"result":"1-0"}"#, command: .game(.setResult(.whiteWins))),
        Valid(payload: "0-1", name: "result", command: .game(.setResult(.blackWins))),
        Valid(payload: "1/2-1/2", name: "result", command: .game(.setResult(.draw))),
        Valid(payload: "*", name: "result", command: .game(.setResult(.ongoing))),
        Valid(payload: #"{"orientation":"black"}"#, command: .game(.setOrientation(.blackNear))),
        Valid(payload: #"{"calibrate":true}"#, command: .calibrate),
        Valid(payload: "", name: "calibrate", command: .calibrate),
        Valid(payload: "true", name: "calibrate", command: .calibrate),
        Valid(payload: "auto", name: "orientation", command: .game(.setOrientation(.auto))),
        Valid(payload: "\"white\"", name: "orientation", command: .game(.setOrientation(.whiteNear))),
    ]

    @Test(arguments: valid)
    func parsesValidCommands(valid: Valid) {
        let parsed = parser.parse(Array(valid.payload.utf8), name: valid.name)
        #expect(parsed.result == .success(valid.command), "\(parsed.error?.description ?? "")")
    }

    @Test func parsesRawOnlyWhenAllowed() {
        let payload = Array(#"{"raw":"0A ff 10"}"#.utf8)
        #expect(parser.parse(payload, rawAllowed: true).command == .board(.custom(Data([0x0A, 0xFF, 0x10]))))
        #expect(parser.parse(payload).error == .rawNotEnabled)
        #expect(
            parser.parse(Array("a1b2".utf8), name: "raw", rawAllowed: true).command
                == .board(.custom(Data([0xA1, 0xB2]))))
        #expect(parser.parse(Array("a1b2".utf8), name: "raw").error == .rawNotEnabled)
    }

    struct Invalid: Sendable, CustomTestStringConvertible {
        let payload: String
        var name: String? = nil
        var rawAllowed = true
        let message: String
        var testDescription: String { (name.map { "set/\($0) " } ?? "set ") + payload }
    }

    static let invalid: [Invalid] = [
        Invalid(
            payload: #"{"move":"e2e4""#,
            message: "invalid JSON: unexpected end of payload (expected ',' or '}') at line 1, column 15"),
        Invalid(payload: "", message: "invalid JSON: no JSON value at line 1, column 1"),
        Invalid(
            payload: #"["leds"]"#,
            message: #"a command must be a JSON object such as {"request":"state"}, got an array"#),
        Invalid(
            payload: #""clear""#, message: #"a command must be a JSON object such as {"request":"state"}, got a string"#
        ),
        Invalid(
            payload: #"{"move":"e2e4","move":"e7e5"}"#,
            message: #"invalid JSON: duplicate key "move" at line 1, column 16"#),
        Invalid(
            payload: #"{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{}}}}}}}}}"#,
            message: "invalid JSON: nested deeper than 8 levels at line 1, column 41"),
        Invalid(
            payload: "{}",
            message:
                "no command in the message; expected one of: leds, request, session, move, raw, new_game, position, takeback, resolve, clock, result, orientation, calibrate"
        ),
        Invalid(
            payload: #"{"transaction":5}"#,
            message:
                "no command in the message; expected one of: leds, request, session, move, raw, new_game, position, takeback, resolve, clock, result, orientation, calibrate"
        ),
        Invalid(payload: #"{"leds":"clear","move":"e2e4"}"#, message: "one command per message, got 2: leds, move"),
        Invalid(payload: #"{"mvoe":"e2e4"}"#, message: #"unknown command "mvoe" (did you mean "move"?)"#),
        Invalid(payload: #"{"calibrate":false}"#, message: "calibrate: bad value false: expected true"),
        Invalid(payload: #"{"newgame":{}}"#, message: #"unknown command "newgame" (did you mean "new_game"?)"#),
        Invalid(payload: #"{"xyzzy":1}"#, message: #"unknown command "xyzzy""#),
        Invalid(payload: "e2e4", name: "mov", message: #"unknown command "mov" (did you mean "move"?)"#),
        Invalid(
            payload: #"{"transaction":[1],"move":"e2e4"}"#,
            message: "transaction: expected a string or a number, got an array"),
        Invalid(payload: #"{"leds":["e2","e9"]}"#, message: #"bad square "e9": expected a1 to h8"#),
        Invalid(payload: "e2 i1", name: "leds", message: #"bad square "i1": expected a1 to h8"#),
        Invalid(
            payload: #"{"leds":{"squares":["e2"],"style":"blink"}}"#,
            message: #"leds.style: bad value "blink": expected one of "highlight", "move", "check", "alert", "hint""#),
        Invalid(
            payload: #"{"leds":{"squars":["e2"]}}"#, message: #"leds: unknown field "squars" (did you mean "squares"?)"#
        ),
        Invalid(payload: #"{"leds":{"style":"move"}}"#, message: #"leds: missing field "squares""#),
        Invalid(
            payload: #"{"leds":{"squares":[5]}}"#,
            message: #"leds.squares: expected square names such as "e4", got a number"#),
        Invalid(
            payload: #"{"leds":true}"#,
            message: #"leds: expected "clear", a list of squares or {"squares":[…],"style":…}, got a boolean"#),
        Invalid(
            payload: #"{"leds":" , "}"#, message: #"leds: bad value " , ": no squares (send "clear" to turn LEDs off)"#),
        Invalid(
            payload: #"{"request":"position"}"#,
            message: #"request: bad value "position": expected "state" or "battery""#),
        Invalid(payload: #"{"session":"stop"}"#, message: #"session: bad value "stop": expected "start""#),
        Invalid(
            payload: #"{"move":"e2e9"}"#, message: #"bad move "e2e9": expected UCI notation such as e2e4 or e7e8q"#),
        Invalid(
            payload: #"{"move":"e7e8k"}"#, message: #"bad move "e7e8k": expected UCI notation such as e2e4 or e7e8q"#),
        Invalid(payload: #"{"move":42}"#, message: "move: expected a move in UCI notation, got a number"),
        Invalid(payload: "", name: "move", message: "move: expected a move in UCI notation, got null"),
        Invalid(payload: #"{"resolve":[]}"#, message: #"resolve: bad value []: no moves"#),
        Invalid(payload: #"{"resolve":"  "}"#, message: #"resolve: bad value []: no moves"#),
        Invalid(payload: #"{"resolve":[1]}"#, message: "resolve: expected moves as strings, got a number"),
        Invalid(
            payload: #"{"resolve":["e2e4","<b>"]}"#,
            message: #"resolve: bad value "<b>": not a move in UCI (e2e4) or SAN (Nf3) notation"#),
        Invalid(payload: #"{"resolve":{"ply":3}}"#, message: #"resolve: missing field "moves""#),
        Invalid(
            payload: #"{"resolve":{"moves":["e4"],"ply":-1}}"#,
            message: #"resolve.ply: bad value -1: expected a whole number ≥ 0"#),
        Invalid(
            payload: #"{"resolve":{"mvoes":["e4"]}}"#,
            message: #"resolve: unknown field "mvoes" (did you mean "moves"?)"#),
        Invalid(
            payload: #"{"resolve":{"moves":{}}}"#,
            message:
                #"resolve.moves: expected a list of moves such as ["e2e4","e7e5"] or {"moves":[…],"ply":n}, got an object"#
        ),
        Invalid(payload: #"{"raw":"abc"}"#, message: #"raw: bad value "abc": odd number of hex digits"#),
        Invalid(payload: #"{"raw":"zz"}"#, message: #"raw: bad value "zz": not hexadecimal"#),
        Invalid(payload: #"{"raw":""}"#, message: #"raw: bad value "": no bytes"#),
        Invalid(payload: #"{"raw":"00"}"#, rawAllowed: false, message: "raw commands are not enabled for this board"),
        Invalid(
            payload: #"{"position":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1"}"#,
            message:
                #"bad FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1": FEN placement "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP" does not have 8 ranks"#
        ),
        Invalid(
            payload: #"{"position":"rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"}"#,
            message:
                #"bad FEN "rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1": FEN rank 7 "ppppppppp" does not have 8 squares"#
        ),
        Invalid(
            payload: "8/8/8/8/8/8/8/8 x - - 0 1", name: "position",
            message: #"bad FEN "8/8/8/8/8/8/8/8 x - - 0 1": FEN side to move "x" is not w or b"#),
        Invalid(payload: #"{"position":7}"#, message: "position: expected a FEN string, got a number"),
        Invalid(
            payload: "8/8/8/4k3/8/8/8/4K3 w - - 0", name: "position",
            message: #"bad FEN "8/8/8/4k3/8/8/8/4K3 w - - 0": FEN has 5 fields, expected 4 or 6"#),
        Invalid(
            payload: #"{"new_game":{"fen":"8/8/8/4k3/8/8/8/4K3 b - - 3"}}"#,
            message: #"bad FEN "8/8/8/4k3/8/8/8/4K3 b - - 3": FEN has 5 fields, expected 4 or 6"#),
        Invalid(
            payload: "state", name: "",
            message:
                "no command name after set/; expected one of: "
                + "leds, request, session, move, raw, new_game, position, takeback, resolve, clock, result, orientation, calibrate"
        ),
        Invalid(
            payload: #"{"new_game":{"time_control":"40/"}}"#,
            message: #"bad time control "40/": expected seconds, optionally "moves/" before and "+increment" after"#),
        Invalid(
            payload: #"{"new_game":{"time_control":"300:40/60"}}"#,
            message: #"bad time control "300:40/60": only the last period may be without a move count ("40/")"#),
        Invalid(
            payload: #"{"new_game":{"whte":"A"}}"#, message: #"new_game: unknown field "whte" (did you mean "white"?)"#),
        Invalid(payload: #"{"new_game":{"white":1}}"#, message: "new_game.white: expected a string, got a number"),
        Invalid(
            payload: #"{"new_game":{"white":"A\nB"}}"#,
            message: #"new_game.white: bad value "A\nB": contains a control character"#),
        Invalid(
            payload: #"{"new_game":{"tags":{"White":"A"}}}"#,
            message: #"new_game.tags: bad value "White": set by its own field or by the bridge, not in tags"#),
        Invalid(
            payload: #"{"new_game":{"tags":{"Bad Tag":"A"}}}"#,
            message: #"new_game.tags: bad value "Bad Tag": not a PGN tag name"#),
        Invalid(
            payload: #"{"new_game":true}"#, message: #"new_game: expected an object such as {"white":…}, got a boolean"#
        ),
        Invalid(
            payload: #"{"new_game":{"fen":"8/8/8/8/8/8/8/9 w - - 0 1"}}"#,
            message: #"bad FEN "8/8/8/8/8/8/8/9 w - - 0 1": FEN placement has invalid character "9""#),
        Invalid(
            payload: #"{"takeback":0}"#,
            message: "takeback: bad value 0: expected a whole number of plies from 1 to 1000"),
        Invalid(
            payload: #"{"takeback":1.5}"#,
            message: "takeback: bad value 1.5: expected a whole number of plies from 1 to 1000"),
        Invalid(payload: #"{"takeback":"2"}"#, message: "takeback: expected a number of plies, got a string"),
        Invalid(
            payload: #"{"clock":"stop"}"#,
            message: #"clock.action: bad value "stop": expected "pause", "resume" or "adjust""#),
        Invalid(payload: #"{"clock":"adjust"}"#, message: #"clock: missing field "white or black""#),
        Invalid(
            payload: #"{"clock":{"action":"adjust","white":-1}}"#,
            message: "clock.white: bad value -1: expected 0 to 360000 seconds"),
        Invalid(
            payload: #"{"clock":{"action":"adjust","white":"5:00"}}"#,
            message: "clock.white: expected a number of seconds, got a string"),
        Invalid(
            payload: #"{"clock":{"action":"pause","white":10}}"#,
            message: #"clock.white: bad value 10: times are set with the action "adjust""#),
        Invalid(payload: #"{"clock":{"white":10}}"#, message: #"clock: missing field "action""#),
        Invalid(
            payload: #"{"result":"2-0"}"#,
            message: #"result: bad value "2-0": expected one of "1-0", "0-1", "1/2-1/2", "*""#),
        Invalid(
            payload: #"{"orientation":1}"#,
            message: #"orientation: expected one of "white", "black", "auto", got a number"#),
        Invalid(
            payload: #"{"action":"pause""#, name: "clock",
            message: #"invalid JSON: unexpected end of payload (expected ',' or '}') at line 1, column 18"#),
        Invalid(
            payload: #""pause"#, name: "clock",
            message: #"invalid JSON: unexpected end of payload (expected '"' closing the string) at line 1, column 7"#),
    ]

    @Test(arguments: invalid)
    func refusesBadCommandsWithClearMessages(invalid: Invalid) {
        let parsed = parser.parse(Array(invalid.payload.utf8), name: invalid.name, rawAllowed: invalid.rawAllowed)
        #expect(parsed.command == nil)
        #expect(parsed.error?.description == invalid.message)
    }

    @Test func refusesNonUTF8AttributePayload() {
        #expect(parser.parse([0x65, 0xFF], name: "move").error == .notText)
    }

    @Test func checksSizeBeforeParsing() {
        let small = CommandParser(maximumPayloadSize: 16)
        let payload = Array(#"{"move":"e2e4"}"#.utf8)
        #expect(payload.count == 15)
        #expect(small.parse(payload).command == .board(.executeMove(uci: "e2e4")))
        let garbage = [UInt8](repeating: 0xFF, count: 17)
        #expect(small.parse(garbage).error == .tooLarge(size: 17, limit: 16))
        #expect(small.parse(garbage, name: "move").error == .tooLarge(size: 17, limit: 16))
        #expect(
            parser.parse([UInt8](repeating: 0x20, count: 65_537)).error?.description
                == "command too large: 65537 bytes (limit 65536 bytes)")
    }

    @Test func keepsTransactionOnSuccessAndFailure() {
        let ok = parser.parse(Array(#"{"transaction":"t-1","request":"state"}"#.utf8))
        #expect(ok.command == .board(.requestState))
        #expect(ok.transaction == "t-1")
        let bad = parser.parse(Array(#"{"move":"e9e4","transaction":42}"#.utf8))
        #expect(bad.error == .badUCI("e9e4"))
        #expect(bad.transaction == 42)
        #expect(parser.parse(Array(#"{"transaction":7}"#.utf8)).transaction == 7)
        #expect(parser.parse(Array("e2e4".utf8), name: "move").transaction == nil)
    }

    @Test func usesTheGivenTimeControlCheck() {
        let strict = CommandParser(timeControlProblem: { $0 == "5400+30" ? nil : "only 5400+30 here" })
        #expect(strict.parse(Array(#"{"new_game":{"time_control":"5400+30"}}"#.utf8)).error == nil)
        #expect(
            strict.parse(Array(#"{"new_game":{"time_control":"300"}}"#.utf8)).error
                == .badTimeControl("300", reason: "only 5400+30 here"))
    }

    @Test func parsesBridgeRequests() {
        let request = parser.parseRequest(Array(#"{"board":"b1","transaction":9}"#.utf8))
        #expect(request.result == .success(["board": "b1"]))
        #expect(request.transaction == 9)
        #expect(parser.parseRequest([]).result == .success([:]))
        #expect(parser.parseRequest(Array("[1]".utf8)).result == .failure(.notAnObject(found: "an array")))
        #expect(
            CommandParser(maximumPayloadSize: 2).parseRequest(Array("{ }".utf8)).result
                == .failure(.tooLarge(size: 3, limit: 2)))
    }

    @Test func unknownBoardMessage() {
        #expect(CommandError.unknownBoard("board-99").description == #"unknown board "board-99""#)
    }

    @Test func suggestsNearestNames() {
        #expect(NameSuggestion.nearest(to: "led", in: CommandParser.commandNames) == "leds")
        #expect(NameSuggestion.nearest(to: "ORIENTATION", in: CommandParser.commandNames) == "orientation")
        #expect(NameSuggestion.nearest(to: "takebak", in: CommandParser.commandNames) == "takeback")
        #expect(NameSuggestion.nearest(to: "q", in: CommandParser.commandNames) == nil)
        #expect(NameSuggestion.editDistance(Array("abcd"), Array("abdc")) == 1)
    }
}
