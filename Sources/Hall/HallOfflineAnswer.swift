public import Contract
public import JSON

extension HallModel {
    /// The answer the hall publishes for a command another client sent to a board whose host
    /// is offline: the bridges keep no session while they are down, so the command is lost,
    /// and without this its sender would hear nothing. `nil` for any other message.
    ///
    /// The answer is the bridges' error response (``ResponsePayload``) on
    /// `<base>/<board>/response`, with the command's `transaction` when it had one.
    public func offlineAnswer(topic: String, payload: [UInt8], topics: Topics) -> (topic: String, json: JSONValue)? {
        guard case .boardCommand(let id)? = try? Topics.parsePublished(topic, base: base),
            let node = offlineNode(of: id)
        else { return nil }
        var transaction: JSONValue?
        if payload.count <= Self.payloadLimit, let json = try? JSONValue(parsing: payload, maximumDepth: 8),
            let value = json["transaction"], value.stringValue != nil || value.doubleValue != nil
        {
            transaction = Self.bound(value)
        }
        let answer = ResponsePayload.error(
            message: "node \(node) offline: the command for board \(id) was not delivered", transaction: transaction)
        return (topics.response(id), answer.json)
    }
}
