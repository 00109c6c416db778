import BoardKit
public import DBus

/// A fake BlueZ on a D-Bus: owns `org.bluez` and exports BlueZ's object tree (`/`
/// ObjectManager, `/org/bluez` AgentManager1/ProfileManager1, adapters `hciN`, devices,
/// GATT services, characteristics and descriptors) with BlueZ's property types, error names
/// and texts and signal order (reference/bluez-dbus.md §1–§4, checklist §10), for simulated
/// boards whose firmware is an `Emulation` personality.
///
/// Everything runs on the main actor; the main queue must be serviced (`dispatchMain()` in
/// `boardsim`, an awaiting `@MainActor` test). Tests and tools drive the simulated world
/// through the control API (``play(_:on:secondsPerMove:)``, ``dropLink(board:reason:)``…),
/// which the control interface ``controlInterface`` at ``controlPath`` exposes on the bus.
@MainActor
public final class FakeBlueZ {
    /// The bus name BlueZ owns.
    public nonisolated static let busName = "org.bluez"
    /// The control object's path (outside the ObjectManager tree).
    public nonisolated static let controlPath = "/org/boardbridge/sim"
    /// The control interface.
    public nonisolated static let controlInterface = "org.boardbridge.Simulator1"

    /// The connection the fake serves on.
    public let connection: DBusConnection
    /// Timings and the emulated BlueZ version.
    public let behavior: BehaviorConfiguration
    /// Called with one line per notable event (connects, drops, control calls).
    public var onLog: (@MainActor (String) -> Void)?
    /// While `true`, request writes are answered only by ``releaseWriteResponses()``: a
    /// test holds a write pending for as long as it needs, whatever the machine's load.
    public var holdsWriteResponses = false
    private var heldWriteResponses: [@MainActor () -> Void] = []

    let tree: DBusObjectTree
    let version: BlueZVersion
    let clock = MonotonicClock()
    var random: SimulatorRandom
    /// The radios' connect and discovery times (``radioTimes(since:)``).
    var radioTimes = RadioTimeLog()
    private(set) var adapters: [FakeAdapter] = []
    private(set) var boards: [SimulatedBoard] = []
    private var agents: [String: String] = [:]
    /// Bluetooth Classic: ProfileManager1 and the SPP boards (`FakeClassicWorld.swift`).
    private(set) lazy var classic = FakeClassicWorld(sim: self)
    private var ownerSubscription: DBusSubscription?
    private var isShutDown = false

    /// Answers a request write `seconds` from now (the ATT write response), or when released
    /// while responses are held.
    func answerWrite(after seconds: Double, _ respond: @escaping @MainActor () -> Void) {
        if holdsWriteResponses {
            heldWriteResponses.append(respond)
        } else {
            _ = schedule(after: seconds, respond)
        }
    }

    /// Stops holding request writes and answers those held, in order.
    public func releaseWriteResponses() {
        holdsWriteResponses = false
        let held = heldWriteResponses
        heldWriteResponses = []
        for respond in held { respond() }
    }

    /// Connects to the bus at `address`, exports everything in `configuration`, and takes
    /// `org.bluez`.
    ///
    /// - Throws: ``FakeBlueZError/bus(_:)`` when the bus is unreachable,
    ///   ``FakeBlueZError/nameTaken(_:)`` when another connection owns `org.bluez`, or a
    ///   configuration error.
    public static func start(
        address: String, configuration: FakeBlueZConfiguration
    ) async throws(FakeBlueZError)
        -> FakeBlueZ
    {
        let connection: DBusConnection
        do {
            connection = try await DBusConnection(address: address)
        } catch {
            throw .bus(error)
        }
        do {
            return try await FakeBlueZ(connection: connection, configuration: configuration)
        } catch {
            connection.close()
            throw error
        }
    }

    /// Exports everything in `configuration` on `connection` and takes `org.bluez`.
    public init(connection: DBusConnection, configuration: FakeBlueZConfiguration) async throws(FakeBlueZError) {
        try configuration.behavior.validate()
        self.connection = connection
        self.behavior = configuration.behavior
        self.version = configuration.behavior.version
        self.random = SimulatorRandom(seed: configuration.behavior.seed)
        do {
            tree = try DBusObjectTree(connection: connection)
        } catch {
            throw .bus(error)
        }
        do {
            try exportRootObjects()
            try connection.registerObject(at: Self.controlPath) { [weak self] invocation in
                guard let self else {
                    invocation.fail(DBusError.noSuchMethod(invocation.message, name: DBusError.Name.unknownObject))
                    return
                }
                SimulatorControl.handle(invocation, on: self)
            }
            try classic.exportControl()
        } catch {
            tree.detach()
            throw .bus(error)
        }
        do throws(FakeBlueZError) {
            for adapter in configuration.effectiveAdapters { try addAdapter(adapter) }
            for board in configuration.boards { _ = try insertBoard(board) }
            try await watchClients()
            let reply = try await requestBusName()
            guard reply == .primaryOwner || reply == .alreadyOwner else { throw FakeBlueZError.nameTaken(Self.busName) }
        } catch {
            shutDown()
            throw error
        }
        log("serving \(Self.busName) as \(connection.uniqueName) (BlueZ \(behavior.bluezVersion) behaviour)")
    }

    isolated deinit {
        shutDown()
    }

    /// Stops every timer and script, unexports the tree and the control object. The
    /// connection stays open (close it to give up `org.bluez`). Idempotent.
    public func shutDown() {
        guard !isShutDown else { return }
        isShutDown = true
        for board in boards {
            board.stopAll()
            board.terminalLine?.unplug()
        }
        for adapter in adapters { adapter.stopAll() }
        classic.stopAll()
        ownerSubscription?.cancel()
        connection.unregisterObject(at: Self.controlPath)
        tree.detach()
    }

    func log(_ message: String) {
        onLog?(message)
    }

    private func requestBusName() async throws(FakeBlueZError) -> DBusRequestNameReply {
        do {
            return try await connection.requestName(Self.busName, flags: [.doNotQueue])
        } catch {
            throw .bus(error)
        }
    }

    // MARK: Adapters and boards

    /// Adds an adapter (`/org/bluez/hciN`).
    func addAdapter(_ configuration: AdapterConfiguration) throws(FakeBlueZError) {
        try configuration.validate()
        guard adapter(named: configuration.name) == nil else { throw .duplicateAdapter(configuration.name) }
        let adapter = FakeAdapter(sim: self, configuration: configuration)
        do {
            try adapter.export()
        } catch {
            throw .bus(error)
        }
        adapters.append(adapter)
    }

    /// Adds a board; with `known` its device object is created at once.
    func insertBoard(_ configuration: BoardConfiguration) throws(FakeBlueZError) -> SimulatedBoard {
        let validated = try configuration.validated()
        guard let adapter = adapter(named: validated.adapter) else { throw .noSuchAdapter(validated.adapter) }
        if boards.contains(where: { $0.id == validated.effectiveID || $0.address == validated.address }) {
            throw .duplicateBoard(validated.effectiveID)
        }
        let board = try SimulatedBoard(sim: self, configuration: validated)
        switch validated.effectiveTransport {
        case "pty":
            let line = SimulatedTerminalLine(
                board: board, linkPath: validated.link ?? SimulatedBoard.defaultLinkPath(id: board.id))
            board.terminalLine = line
            if validated.present { try line.plug() }
        case "rfcomm":
            let device = try classic.addBoard(
                id: board.id, address: board.address, name: board.name, adapter: validated.adapter,
                personality: SimulatedClassicFirmware(board: board))
            device.isPresent = validated.present
            board.classicDevice = device
        default:
            if validated.known { adapter.createKnownDevice(for: board) }
        }
        boards.append(board)
        if let pace = validated.autoplay, pace > 0 { board.startAutoplay(secondsPerMove: pace) }
        log("board \(board.id): \(board.family.rawValue) '\(board.name)' at \(board.address) on \(adapter.name)")
        return board
    }

    /// Removes a board: its link drops (reason Remote), its device object goes.
    func deleteBoard(_ board: SimulatedBoard) {
        board.stopAll()
        board.terminalLine?.unplug()
        if let device = board.classicDevice { classic.removeBoard(device) }
        board.device?.removeAtOnce(reason: .remote)
        boards.removeAll { $0 === board }
        log("board \(board.id) removed")
    }

    func adapter(named name: String) -> FakeAdapter? {
        adapters.first { $0.name == name || $0.path == name }
    }

    /// The board named by `reference`: its id, address (any separator or case), device path,
    /// or advertised name when unique.
    func board(_ reference: String) throws(FakeBlueZError) -> SimulatedBoard {
        if let board = boards.first(where: { $0.id == reference }) { return board }
        if let address = BluetoothAddress.normalized(reference),
            let board = boards.first(where: { $0.address == address })
        {
            return board
        }
        if let board = boards.first(where: { $0.devicePath == reference }) { return board }
        let named = boards.filter { $0.name.lowercased() == reference.lowercased() }
        if named.count > 1 { throw .ambiguousBoard(reference) }
        if let board = named.first { return board }
        throw .noSuchBoard(reference)
    }

    // MARK: Clients

    /// Drops the discovery and notify sessions, filters and agents of clients that leave the
    /// bus (bluetoothd watches owners the same way).
    private func watchClients() async throws(FakeBlueZError) {
        let rule = DBusMatchRule(
            sender: DBusStandard.busName, interface: DBusStandard.busInterface, member: "NameOwnerChanged",
            path: DBusStandard.busPath)
        do {
            ownerSubscription = try await connection.subscribe(rule) { [weak self] message in
                guard message.body.count == 3, let name = message.body[0].stringValue,
                    let newOwner = message.body[2].stringValue, name.hasPrefix(":"), newOwner.isEmpty
                else { return }
                self?.clientLeft(name)
            }
        } catch {
            throw .bus(error)
        }
    }

    func clientLeft(_ name: String) {
        agents[name] = nil
        classic.clientLeft(name)
        for adapter in adapters { adapter.clientLeft(name) }
        for board in boards { board.device?.clientLeft(name) }
    }

    // MARK: /org/bluez

    private func exportRootObjects() throws(DBusError) {
        let agentManager = DBusInterface(
            name: "org.bluez.AgentManager1",
            methods: [
                DBusMethodDescription(
                    "RegisterAgent", in: [DBusArgument("agent", "o"), DBusArgument("capability", "s")]),
                DBusMethodDescription("UnregisterAgent", in: [DBusArgument("agent", "o")]),
                DBusMethodDescription("RequestDefaultAgent", in: [DBusArgument("agent", "o")]),
            ], properties: [],
            methodHandler: { [weak self] invocation in self?.handleAgentManager(invocation) })
        let profileManager = DBusInterface(
            name: "org.bluez.ProfileManager1",
            methods: [
                DBusMethodDescription(
                    "RegisterProfile",
                    in: [DBusArgument("profile", "o"), DBusArgument("UUID", "s"), DBusArgument("options", "a{sv}")]),
                DBusMethodDescription("UnregisterProfile", in: [DBusArgument("profile", "o")]),
            ], properties: [],
            methodHandler: { [weak self] invocation in self?.classic.profiles.handle(invocation) })
        try tree.addInterface(agentManager, at: "/org/bluez")
        try tree.addInterface(profileManager, at: "/org/bluez")
    }

    /// Agent bookkeeping per sender (no agent is ever called: pairing is Just Works).
    private func handleAgentManager(_ invocation: DBusMethodInvocation) {
        let path = invocation.body.first?.objectPathValue ?? ""
        switch invocation.member {
        case "RegisterAgent":
            let capability = invocation.body.count > 1 ? invocation.body[1].stringValue ?? "" : ""
            let capabilities = [
                "", "DisplayOnly", "DisplayYesNo", "KeyboardOnly", "NoInputNoOutput", "KeyboardDisplay",
            ]
            guard capabilities.contains(capability) else { return invocation.fail(BlueZErrors.invalidArguments) }
            guard agents[invocation.sender] == nil else { return invocation.fail(BlueZErrors.alreadyExists) }
            agents[invocation.sender] = path
            invocation.reply()
        case "UnregisterAgent", "RequestDefaultAgent":
            guard agents[invocation.sender] == path else { return invocation.fail(BlueZErrors.doesNotExist) }
            if invocation.member == "UnregisterAgent" { agents[invocation.sender] = nil }
            invocation.reply()
        default:
            invocation.fail(DBusError.noSuchMethod(invocation.message))
        }
    }
}
