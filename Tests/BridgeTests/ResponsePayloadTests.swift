import Testing

@testable import Bridge
@testable import Contract

@Suite struct ResponsePayloadTests {
    let builder = MessageBuilder(topics: try! Topics(node: "hall-a"))

    @Test func okEchoesTransaction() {
        let message = builder.boardResponse(board: "b1", .ok(data: ["command": "leds"], transaction: "t-1"))
        #expect(message.topic == "boardbridge/b1/response")
        #expect(message.payloadText == #"{"status":"ok","data":{"command":"leds"},"transaction":"t-1"}"#)
        #expect(!message.retain)
        #expect(message.qos == 1)
    }

    @Test func okWithoutTransactionOmitsIt() {
        #expect(ResponsePayload.ok().json.encodedString() == #"{"status":"ok","data":{}}"#)
    }

    @Test func errorCarriesMessageAndTransaction() {
        let response = ResponsePayload.error(.badSquare("e9"), transaction: 42)
        #expect(
            response.json.encodedString()
                == #"{"status":"error","data":{},"error":"bad square \"e9\": expected a1 to h8","transaction":42}"#)
    }

    @Test func parsedCommandErrorRoundTrip() {
        let parsed = CommandParser().parse(Array(#"{"transaction":7,"leds":["z1"]}"#.utf8))
        let message = builder.boardResponse(board: "b1", .error(parsed.error!, transaction: parsed.transaction))
        #expect(
            message.payloadText
                == #"{"status":"error","data":{},"error":"bad square \"z1\": expected a1 to h8","transaction":7}"#)
    }

    @Test func mqtt5TargetOverridesTopicAndCarriesCorrelationData() {
        let target = ResponseTarget(responseTopic: "clients/abc/replies", correlationData: [1, 2, 3])
        let message = builder.boardResponse(board: "b1", .ok(), target: target)
        #expect(message.topic == "clients/abc/replies")
        #expect(message.correlationData == [1, 2, 3])
        #expect(!message.retain)
        let bridgeMessage = builder.bridgeResponse(op: "restart", .ok(transaction: 1), target: target)
        #expect(bridgeMessage.topic == "clients/abc/replies")
        #expect(bridgeMessage.correlationData == [1, 2, 3])
    }

    @Test func unusableResponseTopicFallsBack() {
        for topic in ["", "a/+/b", "a/#"] {
            let message = builder.bridgeResponse(op: "restart", .ok(), target: ResponseTarget(responseTopic: topic))
            #expect(message.topic == "boardbridge/bridge/hall-a/response/restart")
        }
        #expect(builder.bridgeResponse(op: "restart", .ok()).topic == "boardbridge/bridge/hall-a/response/restart")
    }
}
