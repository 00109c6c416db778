import Foundation
import TestSupport
import Testing

/// Issue #29 (6): a broker whose ACL will not feed the bridge a command topic grants the
/// subscription all the same (mosquitto answers SUBACK with the QoS asked for): commands
/// went unanswered and nothing was logged. The bridge's probe says so, naming the filter.
extension EndToEndTests {
    @Test func aCommandTopicTheBrokerWillNotDeliverIsLogged() async throws {
        let directory = try TestTools.temporaryDirectory("e2e-acl")
        let acl = directory.appendingPathComponent("acl")
        try "topic readwrite \(Hall.base)/#\ntopic deny \(Hall.base)/+/set\n"
            .write(to: acl, atomically: true, encoding: .utf8)
        let board = HallBoard(id: "acl-air", family: "chessnut", address: "AA:BB:CC:00:29:06")
        let hall = try await Hall(boards: [board], settings: HallSettings(brokerLines: ["acl_file \(acl.path)"]))
        defer { hall.stop() }
        try await waitUntil("the bridge names the filter it is not given", context: hall.report) {
            hall.bridge.output.contains("does not deliver a command topic")
        }
        let lines = hall.bridge.output.split(separator: "\n").filter { $0.contains("does not deliver a command topic") }
        #expect(lines.count == 1, "\(lines)")
        #expect(lines.first?.contains("\(Hall.base)/+/set") == true, "\(lines)")
        #expect(lines.first?.contains("\(Hall.base)/+/set/+") == false, "\(lines)")
        #expect(!hall.bridge.output.contains("delivers every command topic"))
    }

    @Test func aBrokerThatDeliversEveryCommandTopicIsSaidToDoSo() async throws {
        let board = HallBoard(id: "acl-open", family: "chessnut", address: "AA:BB:CC:00:29:07")
        let hall = try await Hall(boards: [board])
        defer { hall.stop() }
        try await waitUntil("the probe comes back", context: hall.report) {
            hall.bridge.output.contains("the broker delivers every command topic to the bridge")
        }
        #expect(!hall.bridge.output.contains("does not deliver a command topic"))
        // Probes are no commands: no board answered one.
        #expect(hall.recorder.json(on: "\(Hall.base)/bridge/response").isEmpty)
    }
}
