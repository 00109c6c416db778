import BoardKit
public import Contract
import Kernel

/// The retained connection and state topics of one board.
extension BoardSession {
    /// The published connection state: the transport's (``ConnectionPayload/stateName(_:)``),
    /// or `ready` while the link is up and the board has answered its handshake.
    /// ``ConnectionPayload/handshakeFailedState`` while the link is up but the board refused
    /// its unlock.
    public var connectionState: String {
        guard transport.state == .connected else { return ConnectionPayload.stateName(transport.state) }
        if isReady { return ConnectionPayload.readyState }
        return handshakeProblem == nil
            ? ConnectionPayload.stateName(transport.state) : ConnectionPayload.handshakeFailedState
    }

    func publishConnection() {
        var payload = ConnectionPayload(
            transportState: transport.state, isReady: isReady, maxAttempts: connectionDetail.maxAttempts,
            nextDelay: connectionDetail.nextDelay, lastError: connectionDetail.lastError ?? transport.lastError,
            timestamp: date(clock.now()))
        payload.reason = connectionReason
        if let handshakeProblem, transport.state == .connected, !isReady {
            payload.state = ConnectionPayload.handshakeFailedState
            payload.lastError = handshakeProblem
        }
        publisher.publish(builder.connection(board: board.id, payload))
        connectionObserver?(payload.state)
    }

    /// The full retained state.
    public var statePayload: BoardStatePayload {
        var attempt: Int?
        if case .reconnecting(let value) = transport.state { attempt = value }
        let link = BoardLinkFacts(
            connection: connectionState, reconnectAttempt: attempt, reconnectMaxAttempts: connectionDetail.maxAttempts,
            model: publishedModel, address: connectionDetail.address ?? board.address,
            adapter: connectionDetail.adapter ?? board.adapter, battery: battery, identity: identity)
        return BoardStatePayload(
            board: board.id, name: board.name, family: board.family, session: core, link: link, lastMove: lastMove,
            at: clock.now())
    }

    /// The model the state names: the configured model or the family's name, as the bridge
    /// info and the Home Assistant device block name it (not the advertised Bluetooth name).
    var publishedModel: String {
        BoardDescriptor(id: board.id, family: board.family, model: board.model).modelName
    }

    func publishState() {
        publisher.publish(builder.boardState(statePayload))
    }
}
