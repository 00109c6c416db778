import Config
import JSON
import Testing

@testable import Bridge
@testable import Contract

/// The bridge requests' answers (`<base>/bridge/<node>/request/<op>`) over fake boards.
@Suite @MainActor struct BridgeRequestsTests {
    /// Two boards; records every reconnect.
    @MainActor final class Boards {
        var ids = ["b2", "b1"]
        var reconnected: [String] = []
        var healthReports = 0
        var restarts = 0

        var requests: BridgeRequests {
            BridgeRequests(
                node: "hall-a", boardIDs: { self.ids.sorted() },
                boardState: { id in self.ids.contains(id) ? ["board": .string(id)] : nil },
                healthReport: {
                    self.healthReports += 1
                    return ["boards_connected": 2]
                },
                reconnect: { id in
                    guard self.ids.contains(id) else { return false }
                    self.reconnected.append(id)
                    return true
                },
                restart: { self.restarts += 1 })
        }
    }

    private func answer(_ op: String, _ payload: String, _ boards: Boards = Boards()) -> String {
        boards.requests.answer(op: op, CommandParser().parseRequest(Array(payload.utf8))).json.encodedString()
    }

    @Test func infoNamesTheVersionNodeAndBoards() {
        #expect(
            answer("info", #"{"transaction":3}"#)
                == #"{"status":"ok","data":{"version":"\#(BoardBridgeVersion.current)","node":"hall-a","boards":["b1","b2"]},"transaction":3}"#
        )
    }

    @Test func boardsAndHealthCarryTheirPayloads() {
        let boards = Boards()
        #expect(answer("boards", "", boards) == #"{"status":"ok","data":[{"board":"b1"},{"board":"b2"}]}"#)
        #expect(answer("health", "{}", boards) == #"{"status":"ok","data":{"boards_connected":2}}"#)
        #expect(boards.healthReports == 1)
    }

    @Test func reconnectOneOrAllBoards() {
        let boards = Boards()
        #expect(answer("reconnect", #"{"board":"b2"}"#, boards) == #"{"status":"ok","data":{"board":"b2"}}"#)
        #expect(boards.reconnected == ["b2"])
        #expect(answer("reconnect", #"{"all":true}"#, boards) == #"{"status":"ok","data":{"boards":["b1","b2"]}}"#)
        #expect(boards.reconnected == ["b2", "b1", "b2"])
    }

    /// Issue #30 (7): Home Assistant's "Restart bridge" button asks for this.
    @Test func restartAnswersAndRestarts() {
        let boards = Boards()
        #expect(
            answer("restart", #"{"transaction":"r"}"#, boards)
                == #"{"status":"ok","data":{"restarting":true},"transaction":"r"}"#)
        #expect(boards.restarts == 1)
    }

    @Test func reconnectNeedsAnExistingBoard() {
        let boards = Boards()
        for payload in [#"{"board":"b9"}"#, "{}", #"{"all":false}"#, #"{"board":7}"#] {
            #expect(
                answer("reconnect", payload, boards)
                    == #"{"status":"error","data":{},"error":"reconnect needs an existing \"board\" (or \"all\":true)"}"#
            )
        }
        #expect(boards.reconnected.isEmpty)
    }

    @Test func unknownRequestsAndBadPayloadsAreRefused() {
        #expect(
            answer("reboot", #"{"transaction":"t"}"#)
                == #"{"status":"error","data":{},"error":"unknown request \"reboot\", expected one of info, boards, health, reconnect, restart","transaction":"t"}"#
        )
        let boards = Boards()
        #expect(answer("reconnect", "[1]", boards).hasPrefix(#"{"status":"error""#))
        #expect(boards.reconnected.isEmpty)
    }
}
