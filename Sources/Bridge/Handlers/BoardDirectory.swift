import Contract
import JSON

/// What the handlers read of the bridged boards and may do to them: ``BridgeBoards`` in the
/// bridge, a few recorded sessions in tests.
@MainActor
protocol BoardDirectory: AnyObject {
    /// The ids of the bridged boards, sorted.
    var ids: [String] { get }
    /// The boards as info and discovery describe them, in the order they were added.
    var descriptors: [BoardDescriptor] { get }
    /// The session of board `id`, `nil` for a board this bridge does not serve.
    func session(_ id: String) -> BoardSession?
    /// Board `id` as info and discovery describe it.
    func descriptor(_ id: String) -> BoardDescriptor?
    /// Disconnects and restarts board `id`'s link; `false` for an unknown id.
    func reconnect(_ id: String) -> Bool
    /// Publishes every board's retained topics again.
    func publishRetained()
}

extension BoardDirectory {
    /// Board `id`'s full retained state (``BoardSession/statePayload``), `nil` for an unknown id.
    func state(of id: String) -> JSONValue? { session(id)?.statePayload.json }
}
