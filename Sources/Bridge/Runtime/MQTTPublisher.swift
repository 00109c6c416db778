import Contract
import Logging
import MQTT

/// Hands the bridge's messages to the MQTT client, whose ordered, bounded queue keeps
/// them across broker outages (nothing published while the broker is down is lost).
@MainActor
final class MQTTPublisher: MessagePublishing {
    let client: MQTTClient
    private let logger: Logger

    init(client: MQTTClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    func publish(_ message: OutgoingMessage) {
        publish(message, origin: nil)
    }

    func publish(_ message: OutgoingMessage, origin: ContinuousClock.Instant?) {
        var properties = MQTTProperties()
        properties.correlationData = message.correlationData
        do {
            try client.publish(
                MQTTMessage(
                    topic: message.topic, payload: message.payload,
                    qos: message.qos >= 1 ? .atLeastOnce : .atMostOnce, retain: message.retain,
                    properties: properties),
                priority: message.isAnswer ? .low : .normal, origin: origin)
        } catch {
            logger.error("cannot publish", [("topic", message.topic), ("error", "\(error)")])
        }
    }
}
