import BoardKit
import BoardLink
import Config
import Contract
import FoundationEssentials
import Logging

/// The bridged boards: each one's configuration, ``BoardSession`` and transport, made,
/// started, stopped and closed together. The handlers see them as a ``BoardDirectory``.
@MainActor
final class BridgeBoards: BoardDirectory {
    /// The boards' configurations, in the order they were added.
    private(set) var configured: [ConfiguredBoard] = []
    private var sessions: [String: BoardSession] = [:]
    private var transports: [String: any BridgedBoardTransport] = [:]
    private let factory: BoardTransportFactory
    private let game: GameConfiguration
    private let builder: MessageBuilder
    private let publisher: any MessagePublishing
    private let store: StateWriter
    private let logger: Logger

    /// Called with every session as it is added (the health monitor follows it).
    var onAdded: ((BoardSession) -> Void)?
    /// Called with every change of a board's link state.
    var onLinkState: ((String, BoardTransportState) -> Void)?
    /// Called when a board reported its serial number or version.
    var onIdentityChanged: ((String) -> Void)?

    init(
        factory: BoardTransportFactory, game: GameConfiguration, builder: MessageBuilder,
        publisher: any MessagePublishing, store: StateWriter, logger: Logger
    ) {
        self.factory = factory
        self.game = game
        self.builder = builder
        self.publisher = publisher
        self.store = store
        self.logger = logger
    }

    /// How many boards are bridged.
    var count: Int { sessions.count }

    var ids: [String] { sessions.keys.sorted() }

    var descriptors: [BoardDescriptor] { configured.map(descriptor) }

    func session(_ id: String) -> BoardSession? { sessions[id] }

    func descriptor(_ id: String) -> BoardDescriptor? {
        configured.first { $0.id == id }.map(descriptor)
    }

    /// Whether a configured board is matched by `address` (any case).
    func claims(address: String) -> Bool {
        configured.contains { $0.address?.uppercased() == address.uppercased() }
    }

    /// Makes `board`'s transport and session (its saved game restored); nothing connects
    /// until ``start(_:publishingRetained:)``.
    func add(_ board: ConfiguredBoard) throws {
        let calibration =
            board.family == .certabo
            ? BoardCalibrationKeeper(board: board.id, store: store, logger: logger.labelled(board.id)) : nil
        let transport = try factory.makeTransport(for: board, calibration: calibration)
        let session = BoardSession(
            board: board, transport: transport, game: game, builder: builder, publisher: publisher, store: store,
            clock: .wall, logger: logger)
        session.calibration = calibration
        // A restarted bridge continues the game a ChessUp keeps itself instead of starting it afresh.
        transport.resumeBoardSession(session.resumesBoardGame)
        transports[board.id] = transport
        sessions[board.id] = session
        configured.append(board)
        onAdded?(session)
    }

    /// Starts board `id`'s session and link; `publishingRetained`: its retained topics go
    /// out at once (a board added while the broker connection is up).
    func start(_ id: String, publishingRetained: Bool) {
        guard let session = sessions[id], let transport = transports[id] else { return }
        transport.observeStatus { [weak session, weak self] status in
            guard let session else { return }
            session.connectionDetail = .init(
                maxAttempts: status.maxAttempts, nextDelay: status.nextDelay, lastError: status.lastError,
                adapter: status.adapter, address: status.deviceAddress)
            self?.onLinkState?(id, status.state)
            session.transportStateChanged()
        }
        session.identityObserver = { [weak self] in self?.onIdentityChanged?(id) }
        session.start()
        if publishingRetained { session.publishRetained() }
        transport.start()
    }

    func reconnect(_ id: String) -> Bool {
        guard let transport = transports[id] else { return false }
        transport.disconnect()
        transport.start()
        return true
    }

    func publishRetained() {
        for id in ids { sessions[id]?.publishRetained() }
    }

    /// Stops every session (each saves its game); the links stay until ``closeLinks()``.
    func stopSessions() {
        for id in ids { sessions[id]?.stop() }
    }

    /// Closes every link at once and waits for them: bluetoothd holds each link 2 s
    /// (DISCONNECT_TIMER) before it answers a Disconnect, so one after the other would pass
    /// the shutdown deadline at five boards.
    func closeLinks() async {
        let closing = transports.values.map { transport in Task { await transport.close() } }
        for task in closing { await task.value }
    }

    private func descriptor(_ board: ConfiguredBoard) -> BoardDescriptor {
        let session = sessions[board.id]
        var descriptor = BoardDescriptor(
            id: board.id, name: board.name, family: board.family, model: board.model, address: board.address,
            suggestedArea: board.area, capabilities: session?.capabilities)
        descriptor.serialNumber = session?.identity.serialNumber
        descriptor.firmwareVersion = session?.identity.version
        descriptor.isWired = board.serial != nil
        return descriptor
    }
}
