import BoardKit
import Foundation
import JSON
import Testing

@testable import Bridge
@testable import Contract

@Suite struct MessageBuilderTests {
    let builder = MessageBuilder(topics: try! Topics(node: "hall-a"))
    static let time = Date(timeIntervalSince1970: 1_777_644_191.204)
    static let stamp = "2026-05-01T14:03:11.204Z"
    static let fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"

    /// Checks topic, payload text, retain and QoS 1.
    func check(_ message: OutgoingMessage, topic: String, payload: String, retain: Bool) {
        #expect(message.topic == topic)
        #expect(message.payloadText == payload)
        #expect(message.retain == retain)
        #expect(message.qos == 1)
        #expect(message.correlationData == nil)
    }

    @Test func bridgeState() {
        check(
            builder.bridgeState(online: true), topic: "boardbridge/bridge/hall-a/state",
            payload: #"{"state":"online"}"#, retain: true)
        check(
            builder.bridgeState(online: false), topic: "boardbridge/bridge/hall-a/state",
            payload: #"{"state":"offline"}"#, retain: true)
    }

    @Test func bridgeInfoRedactsSecrets() throws {
        let bridge = BridgeDescriptor(topics: builder.topics, version: "0.1.0")
        let boards = [
            BoardDescriptor(
                id: "board-07", name: "Board 7", family: .chessnut, model: "Chessnut Air", address: "F4:12:FA:00:11:22"),
            BoardDescriptor(id: "b2", family: .dgtPegasus),
        ]
        let config: JSONValue = [
            "mqtt": ["server": "mqtt://localhost", "password": "hunter2", "auth_token": nil, "user": "u"],
            "boards": [["id": "b2", "api_secret": "x"]],
        ]
        check(
            builder.bridgeInfo(bridge: bridge, boards: boards, config: config),
            topic: "boardbridge/bridge/hall-a/info",
            payload: #"{"version":"0.1.0","node":"hall-a","base_topic":"boardbridge","boards":["#
                + #"{"id":"board-07","name":"Board 7","family":"chessnut","model":"Chessnut Air","address":"F4:12:FA:00:11:22"},"#
                + #"{"id":"b2","name":"b2","family":"pegasus","model":"DGT Pegasus","address":null}],"#
                + #""config":{"mqtt":{"server":"mqtt://localhost","password":"<redacted>","auth_token":null,"user":"u"},"#
                + #""boards":[{"id":"b2","api_secret":"<redacted>"}]}}"#,
            retain: true)
    }

    @Test func availability() {
        check(
            builder.availability(board: "board-07", online: true), topic: "boardbridge/board-07/availability",
            payload: #"{"state":"online"}"#, retain: true)
        check(
            builder.availability(board: "board-07", online: false), topic: "boardbridge/board-07/availability",
            payload: #"{"state":"offline"}"#, retain: true)
    }

    @Test func fullBoardState() {
        let state = BoardStatePayload(
            board: "board-07", name: "Board 7", family: .chessnut, model: "Chessnut Air",
            address: "F4:12:FA:00:11:22", adapter: "hci0", connection: "connected", fen: Self.fen, turn: .black,
            ply: 3, moveNumber: 2, lastMove: .init(uci: "g1f3", san: "Nf3"), sync: .outOfSync,
            syncSquares: [.e4, .e5],
            clock: .init(white: 5312.4, black: 5390, running: .black, paused: true),
            battery: .init(percent: 81, charging: false),
            tags: .init(round: "3", board: "7", white: "Doe, J", black: "Roe, R"), result: "*", updated: Self.time)
        check(
            builder.boardState(state), topic: "boardbridge/board-07",
            payload: #"{"board":"board-07","name":"Board 7","family":"chessnut","model":"Chessnut Air","#
                + #""address":"F4:12:FA:00:11:22","adapter":"hci0","serial_number":null,"firmware_version":null,"#
                + #""connection":{"state":"connected","attempt":null,"max_attempts":null},"#
                + #""fen":"\#(Self.fen)","turn":"black","ply":3,"move_number":2,"#
                + #""last_move":{"uci":"g1f3","san":"Nf3"},"sync":{"state":"out_of_sync","squares":["e4","e5"],"reason":null},"#
                + #""orientation":{"setting":"auto","in_force":null},"#
                + #""clock":{"white":5312.4,"black":5390,"running":"black","paused":true,"source":"bridge"},"#
                + #""battery":{"percent":81,"charging":false},"#
                + #""game":{"event":null,"site":null,"round":"3","board":"7","white":"Doe, J","black":"Roe, R"},"#
                + #""result":"*","updated":"\#(Self.stamp)"}"#,
            retain: true)
    }

    @Test func minimalBoardStateKeepsEveryKey() {
        let state = BoardStatePayload(
            board: "b1", connection: "reconnecting", reconnectAttempt: 2, reconnectMaxAttempts: 10,
            updated: Date(timeIntervalSince1970: 0))
        check(
            builder.boardState(state), topic: "boardbridge/b1",
            payload: #"{"board":"b1","name":null,"family":null,"model":null,"address":null,"adapter":null,"#
                + #""serial_number":null,"firmware_version":null,"#
                + #""connection":{"state":"reconnecting","attempt":2,"max_attempts":10},"#
                + #""fen":null,"turn":null,"ply":0,"move_number":1,"last_move":{"uci":null,"san":null},"#
                + #""sync":{"state":"in_sync","squares":[],"reason":null},"#
                + #""orientation":{"setting":"auto","in_force":null},"#
                + #""clock":{"white":null,"black":null,"running":null,"paused":false,"source":null},"#
                + #""battery":{"percent":null,"charging":null},"#
                + #""game":{"event":null,"site":null,"round":null,"board":null,"white":null,"black":null},"#
                + #""result":"*","updated":"1970-01-01T00:00:00.000Z"}"#,
            retain: true)
    }

    @Test func connection() {
        let payload = ConnectionPayload(
            transportState: .reconnecting(attempt: 3), maxAttempts: 10, nextDelay: 4.25,
            lastError: "le-connection-abort-by-local", timestamp: Self.time)
        check(
            builder.connection(board: "b1", payload), topic: "boardbridge/b1/connection",
            payload: #"{"state":"reconnecting","attempt":3,"max_attempts":10,"next_delay":4.25,"#
                + #""last_error":"le-connection-abort-by-local","reason":null,"timestamp":"\#(Self.stamp)"}"#,
            retain: true)
        #expect(ConnectionPayload.stateName(.poweredOff) == "powered_off")
        #expect(ConnectionPayload(transportState: .connected, timestamp: Self.time).attempt == nil)
    }

    static let move = MovePayload(
        uci: "g1f3", san: "Nf3", ply: 3, moveNumber: 2, color: .white, fen: fen, whiteClock: 5312.0004,
        blackClock: 5390, timestamp: time)

    @Test func moveIsNotRetained() {
        check(
            builder.move(board: "b1", Self.move), topic: "boardbridge/b1/move",
            payload: #"{"uci":"g1f3","san":"Nf3","ply":3,"move_number":2,"color":"white","fen":"\#(Self.fen)","#
                + #""clock":{"white":5312,"black":5390},"timestamp":"\#(Self.stamp)"}"#,
            retain: false)
    }

    @Test func aRecoveredMoveSaysSo() {
        var move = Self.move
        move.recovered = true
        check(
            builder.move(board: "b1", move), topic: "boardbridge/b1/move",
            payload: #"{"uci":"g1f3","san":"Nf3","ply":3,"move_number":2,"color":"white","fen":"\#(Self.fen)","#
                + #""clock":{"white":5312,"black":5390},"timestamp":"\#(Self.stamp)","recovered":true}"#,
            retain: false)
    }

    @Test(arguments: [
        (
            BoardEventPayload.outOfSync(squares: [.e2, .e4]),
            #"{"event_type":"out_of_sync","squares":["e2","e4"],"reason":null,"timestamp":"2026-05-01T14:03:11.204Z"}"#
        ),
        (
            .outOfSync(squares: [.g1, .f3], reason: "awaiting_start_position"),
            #"{"event_type":"out_of_sync","squares":["g1","f3"],"reason":"awaiting_start_position","timestamp":"2026-05-01T14:03:11.204Z"}"#
        ),
        (.inSync, #"{"event_type":"in_sync","timestamp":"2026-05-01T14:03:11.204Z"}"#),
        (
            .illegalMove(uci: "e2e5", squares: [.e2, .e5], fen: "8/8/8/8/8/8/8/8 w - - 0 1"),
            #"{"event_type":"illegal_move","uci":"e2e5","squares":["e2","e5"],"fen":"8/8/8/8/8/8/8/8 w - - 0 1","timestamp":"2026-05-01T14:03:11.204Z"}"#
        ),
        (
            .illegalMove(
                uci: "f1f4", squares: [.f1, .f4], fen: "f",
                details: IllegalMoveDetails(
                    reason: "not_a_move", from: .f1, to: .f4, piece: Piece(.white, .bishop), color: .white,
                    captures: false)),
            #"{"event_type":"illegal_move","uci":"f1f4","squares":["f1","f4"],"fen":"f","reason":"not_a_move","#
                + #""from":"f1","to":"f4","piece":"bishop","piece_color":"white","color":"white","lan":"Bf1-f4","#
                + #""timestamp":"2026-05-01T14:03:11.204Z"}"#
        ),
        (
            .outOfSync(squares: [.e2, .e4], reason: "missed_moves", candidates: [["e2e4", "e7e5"], ["d2d4"]]),
            #"{"event_type":"out_of_sync","squares":["e2","e4"],"reason":"missed_moves","#
                + #""candidates":[["e2e4","e7e5"],["d2d4"]],"timestamp":"2026-05-01T14:03:11.204Z"}"#
        ),
        (
            .illegalMove(uci: nil, squares: [.a1], fen: nil),
            #"{"event_type":"illegal_move","uci":null,"squares":["a1"],"fen":null,"timestamp":"2026-05-01T14:03:11.204Z"}"#
        ),
        (
            .takeback(plies: 2, fen: "f"),
            #"{"event_type":"takeback","plies":2,"fen":"f","timestamp":"2026-05-01T14:03:11.204Z"}"#
        ),
        (
            .gameStart(fen: "f"),
            #"{"event_type":"game_start","fen":"f","game":{"event":null,"site":null,"round":null,"board":null,"white":null,"black":null},"time_control":null,"timestamp":"2026-05-01T14:03:11.204Z"}"#
        ),
        (
            .gameStart(fen: "f", game: .init(round: "3", white: "Doe, J", black: "Roe, R"), timeControl: "300+2"),
            #"{"event_type":"game_start","fen":"f","game":{"event":null,"site":null,"round":"3","board":null,"white":"Doe, J","black":"Roe, R"},"time_control":"300+2","timestamp":"2026-05-01T14:03:11.204Z"}"#
        ),
        (
            .gameEnd(result: "1-0", termination: "checkmate"),
            #"{"event_type":"game_end","result":"1-0","termination":"checkmate","timestamp":"2026-05-01T14:03:11.204Z"}"#
        ),
        (.button(name: "play"), #"{"event_type":"button","name":"play","timestamp":"2026-05-01T14:03:11.204Z"}"#),
        (
            .alert(reason: "out_of_sync", squares: [.d4]),
            #"{"event_type":"alert","reason":"out_of_sync","squares":["d4"],"timestamp":"2026-05-01T14:03:11.204Z"}"#
        ),
        (.batteryLow(percent: 9), #"{"event_type":"battery_low","percent":9,"timestamp":"2026-05-01T14:03:11.204Z"}"#),
    ])
    func eventsAreNeverRetained(event: BoardEventPayload, payload: String) {
        check(
            builder.event(board: "b1", event, timestamp: Self.time), topic: "boardbridge/b1/event", payload: payload,
            retain: false)
        #expect(BoardEventPayload.eventTypes.contains(event.eventType))
    }

    @Test func moveEvent() {
        check(
            builder.event(board: "b1", .move(Self.move), timestamp: Date(timeIntervalSince1970: 0)),
            topic: "boardbridge/b1/event",
            payload: #"{"event_type":"move","uci":"g1f3","san":"Nf3","ply":3,"move_number":2,"color":"white","#
                + #""fen":"\#(Self.fen)","clock":{"white":5312,"black":5390},"timestamp":"\#(Self.stamp)"}"#,
            retain: false)
    }

    @Test func clockActions() {
        check(
            builder.clock(
                board: "b1",
                ClockPayload(
                    action: .pause, color: .white, white: 300, black: 290.5, reason: "out_of_sync", timestamp: Self.time
                )),
            topic: "boardbridge/b1/clock",
            payload:
                #"{"action":"pause","color":"white","white":300,"black":290.5,"reason":"out_of_sync","timestamp":"\#(Self.stamp)"}"#,
            retain: false)
        check(
            builder.clock(
                board: "b1", ClockPayload(action: .resume, color: .black, white: 299, black: 290, timestamp: Self.time)),
            topic: "boardbridge/b1/clock",
            payload:
                #"{"action":"resume","color":"black","white":299,"black":290,"reason":null,"timestamp":"\#(Self.stamp)"}"#,
            retain: false)
    }

    @Test func pgnIsRetainedText() {
        let pgn = "[Event \"Club\"]\n\n1. e4 { [%clk 1:29:58] } *\n"
        check(builder.pgn(board: "b1", text: pgn), topic: "boardbridge/b1/pgn", payload: pgn, retain: true)
    }

    @Test func boardRemovalClearsRetainedTopics() {
        let messages = builder.boardRemoval(board: "b1")
        #expect(
            messages.map(\.topic) == [
                "boardbridge/b1", "boardbridge/b1/availability", "boardbridge/b1/connection", "boardbridge/b1/pgn",
                "boardbridge/b1/corrections",
            ])
        #expect(messages.allSatisfy { $0.payload.isEmpty && $0.retain && $0.qos == 1 })
    }

    @Test(arguments: [
        (Date(timeIntervalSince1970: 0), "1970-01-01T00:00:00.000Z"),
        (Date(timeIntervalSince1970: -1), "1969-12-31T23:59:59.000Z"),
        (Date(timeIntervalSince1970: 951_782_400), "2000-02-29T00:00:00.000Z"),
        (Date(timeIntervalSince1970: 4_102_444_800.999), "2100-01-01T00:00:00.999Z"),
        (Date(timeIntervalSince1970: 1_709_251_199.9996), "2024-03-01T00:00:00.000Z"),
        (Date(timeIntervalSince1970: -62_135_596_800), "0001-01-01T00:00:00.000Z"),
        (Date(timeIntervalSince1970: 1e15), "9999-12-31T23:59:59.999Z"),
        (Date(timeIntervalSince1970: -1e15), "0000-01-01T00:00:00.000Z"),
        (Date(timeIntervalSince1970: 1_777_644_191.204), "2026-05-01T14:03:11.204Z"),
    ])
    func formatsTimestamps(date: Date, text: String) {
        #expect(ISO8601Timestamp.string(from: date) == text)
    }
}
