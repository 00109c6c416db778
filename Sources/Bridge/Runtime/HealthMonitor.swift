public import BlueZ
public import BoardKit
public import Config
public import Contract
import FoundationEssentials
import Kernel
public import Logging
import MQTT
import MainLoop

/// What a transport tells the health report about its link, and how a stalled link is
/// recycled (``BlueZ/BlueZBoardTransport`` has all three).
@MainActor
public protocol BoardLinkHealthReporting: AnyObject {
    /// The signal strength of the link (dBm), `nil` when unknown.
    var linkRSSI: Int? { get }
    /// Writes the current link dropped unacknowledged.
    var linkDroppedWrites: Int { get }
    /// Bytes the current link has carried from the board (0 without a link): a board whose
    /// report changed nothing makes no event, but has answered.
    var linkBytesReceived: Int { get }
    /// Ends the link as a drop does, so that the reconnect policy re-establishes it.
    func recycleLink(reason: String)
}

extension BlueZBoardTransport: BoardLinkHealthReporting {}

/// The bridge's health: publishes ``HealthPayload`` on `<base>/bridge/<node>/health`
/// every `health.interval` seconds and on request, keeps one ``BoardHealth`` per board,
/// and acts on a stall (a board connected but silent for `health.stall_after` seconds):
/// `connection` reason `stalled`, a `stalled` event, the report at once, and the link
/// recycled through the reconnect policy. Save failures of the state directory are
/// counted here too.
@MainActor
public final class HealthMonitor {
    /// The connection `reason` while a stall is being recovered from.
    public static let stalledReason = "stalled"

    private struct Entry {
        let session: BoardSession
        var health: BoardHealth
        var state: BoardTransportState = .idle
        var published: String?
        /// ``BoardLinkHealthReporting/linkBytesReceived`` at the last stall check.
        var bytesReceived = 0
    }

    private let settings: HealthConfiguration
    private let topics: Topics
    private let publisher: any MessagePublishing
    private let stateDirectory: String
    private let clock: SessionClock
    private let logger: Logger
    private let broker: @MainActor () -> HealthPayload.Broker
    private let startedAt: Double
    private var entries: [String: Entry] = [:]
    private var saveErrors = 0
    private var saveErrorsSinceReport = 0
    private var lastSaveError: (reason: String, at: Double)?
    private var cpuMark: (time: Double, ticks: Int)?
    private var reportTimer: LoopTimer?
    private var stallTimer: LoopTimer?
    private var reportSoon = false
    private var moveHandling = MoveHandlingLatency()

    /// A monitor; nothing is published before ``start()`` or ``publishReport()``.
    public init(
        settings: HealthConfiguration, topics: Topics, publisher: any MessagePublishing, stateDirectory: String,
        clock: SessionClock, logger: Logger, broker: @escaping @MainActor () -> HealthPayload.Broker
    ) {
        self.settings = settings
        self.topics = topics
        self.publisher = publisher
        self.stateDirectory = stateDirectory
        self.clock = clock
        self.logger = logger.labelled("health")
        self.broker = broker
        startedAt = clock.now()
        cpuMark = ProcessFigures.cpuTicks().map { (startedAt, $0) }
    }

    /// Follows `session`: its events count as frames.
    public func add(_ session: BoardSession) {
        let id = session.board.id
        entries[id] = Entry(session: session, health: BoardHealth(stallAfter: settings.stallAfter))
        session.outputObserver = { [weak self] outputs in self?.observe(outputs, board: id) }
        session.connectionObserver = { [weak self] state in self?.connectionPublished(state, board: id) }
    }

    /// A board's `connection` state changed: a report follows shortly (changes of several
    /// boards within a quarter of a second share one), so the boards-connected figure and
    /// the per-board states never wait for the next interval.
    private func connectionPublished(_ state: String, board id: String) {
        guard var entry = entries[id], entry.published != state else { return }
        entry.published = state
        entries[id] = entry
        guard !reportSoon else { return }
        reportSoon = true
        MainLoop.after(0.25) { [weak self] in
            guard let self, self.reportSoon else { return }
            self.reportSoon = false
            self.publishReport()
        }
    }

    /// The board's transport changed state (from its status callback).
    public func transportChanged(board id: String, to state: BoardTransportState) {
        guard var entry = entries[id] else { return }
        if state == .connected {
            entry.health.linkUp(at: clock.now())
        } else {
            entry.health.linkDown()
        }
        if state == .poweredOff { entry.health.adapterReset() }
        entry.state = state
        entries[id] = entry
    }

    /// A save of `board`'s game failed (the state writer's error callback).
    public func saveFailed(board: String, reason: String) {
        saveErrors += 1
        saveErrorsSinceReport += 1
        let first = lastSaveError == nil || saveErrorsSinceReport == 1
        lastSaveError = (reason, clock.now())
        // The first failure after a healthy report is published at once: the problem
        // sensor does not wait for the next interval.
        if first { publishReport() }
    }

    /// A move was handed over for sending `duration` after the wake-up for its frame.
    public func moveHandled(in duration: Duration) {
        moveHandling.record(duration)
    }

    /// Starts the report and stall timers (the first report goes out when the broker
    /// accepts the connection, with the other retained topics).
    public func start() {
        reportTimer = MainLoop.every(settings.interval) { [weak self] in self?.publishReport() }
        if settings.stallAfter > 0 {
            stallTimer = MainLoop.every(min(1, settings.stallAfter / 4)) { [weak self] in self?.checkStalls() }
        }
    }

    /// Stops the timers.
    public func stop() {
        reportTimer?.cancel()
        reportTimer = nil
        stallTimer?.cancel()
        stallTimer = nil
    }

    /// Makes a report (starting the next rate and CPU period) and publishes it, retained.
    @discardableResult
    public func publishReport() -> HealthPayload {
        let payload = report()
        publisher.publish(payload.message(topics: topics))
        return payload
    }

    private func report() -> HealthPayload {
        let now = clock.now()
        var cpu: Double?
        if let ticks = ProcessFigures.cpuTicks() {
            if let mark = cpuMark, now > mark.time {
                cpu = Double(ticks - mark.ticks) / ProcessFigures.ticksPerSecond / (now - mark.time) * 100
            }
            cpuMark = (now, ticks)
        }
        let process = HealthPayload.Process(
            uptime: now - startedAt, cpuPercent: cpu, rssBytes: ProcessFigures.residentBytes(),
            moveHandling: moveHandling.summary)
        let probe = ProcessFigures.probeWritable(stateDirectory)
        let directory = HealthPayload.StateDirectory(
            path: stateDirectory, writable: probe == nil, freeBytes: ProcessFigures.freeBytes(stateDirectory),
            errors: saveErrors, lastError: probe ?? lastSaveError?.reason,
            lastErrorAt: probe.map { _ in Date(timeIntervalSince1970: now) }
                ?? lastSaveError.map { Date(timeIntervalSince1970: $0.at) },
            problem: probe != nil || saveErrorsSinceReport > 0)
        saveErrorsSinceReport = 0
        var boards: [HealthPayload.Board] = []
        for id in entries.keys.sorted() {
            guard var entry = entries[id] else { continue }
            let transport = entry.session.transport as? any BoardLinkHealthReporting
            if let transport { entry.health.writesDropped(total: transport.linkDroppedWrites) }
            let rate = entry.health.takeFrameRate(at: now)
            entries[id] = entry
            let health = entry.health
            boards.append(
                HealthPayload.Board(
                    id: id, connection: entry.session.connectionState, rssi: transport?.linkRSSI,
                    notificationsPerSecond: rate, secondsSinceLastFrame: health.secondsSinceLastFrame(at: now),
                    stalled: health.isStalled, stalls: health.stalls, reconnects: health.reconnects,
                    adapterResets: health.adapterResets, missingAcks: health.missingAcks,
                    malformedFrames: health.malformedFrames, batteryPercent: entry.session.battery?.percent))
        }
        return HealthPayload(
            process: process, broker: broker(), stateDirectory: directory, boards: boards,
            timestamp: Date(timeIntervalSince1970: now))
    }

    /// Counts the frame an event came in, by what the kernel made of it: a link that came or
    /// went is no frame; a refused handshake is an acknowledgement missing; a frame no adapter
    /// decoded is malformed.
    private func observe(_ outputs: [SessionOutput], board id: String) {
        guard var entry = entries[id] else { return }
        switch outputs.first {
        case .board(.connected), .board(.disconnected):
            return
        case .board(.handshakeFailed):
            entry.health.missingAck()
        case .board(.unhandled):
            entry.health.frameReceived(at: clock.now(), malformed: true)
        case .board(.ready):
            entry.health.frameReceived(at: clock.now())
            entry.session.connectionReason = nil
        default:
            entry.health.frameReceived(at: clock.now())
        }
        entries[id] = entry
    }

    /// Asks silent boards for something, and recycles the links of stalled ones.
    func checkStalls() {
        let now = clock.now()
        for id in entries.keys.sorted() {
            guard var entry = entries[id], entry.session.transport.state == .connected else { continue }
            if let reporting = entry.session.transport as? any BoardLinkHealthReporting {
                let received = reporting.linkBytesReceived
                if received != entry.bytesReceived {
                    entry.bytesReceived = received
                    entry.health.bytesArrived(at: now)
                }
            }
            let decision = entry.health.check(at: now)
            entries[id] = entry
            switch decision {
            case .none:
                break
            case .probe:
                let transport = entry.session.transport
                logger.debug("board silent: asking it for its state (else its battery)", [("board", id)])
                if let checking = transport as? any BoardCommandChecking {
                    if !checking.sendIfSupported(.requestState) { _ = checking.sendIfSupported(.requestBattery) }
                } else {
                    transport.send(.requestState)
                }
            case .stalled(let silent):
                stalled(entry.session, silentFor: silent, at: now)
            }
        }
    }

    private func stalled(_ session: BoardSession, silentFor silent: Double, at now: Double) {
        let id = session.board.id
        let seconds = Int(silent.rounded())
        logger.warning(
            "board stalled: connected but nothing received; recycling the link",
            [("board", id), ("silent_seconds", String(seconds))])
        session.connectionReason = Self.stalledReason
        publisher.publish(
            HealthPayload.stalledEvent(
                board: id, silentFor: silent, stallAfter: settings.stallAfter,
                timestamp: Date(timeIntervalSince1970: now), topics: topics))
        publishReport()
        if let transport = session.transport as? any BoardLinkHealthReporting {
            transport.recycleLink(reason: "stalled: nothing received for \(seconds) s")
        } else {
            session.transportStateChanged()
        }
    }

}

extension MQTTClient {
    /// The client's figures for the health report.
    var healthFigures: HealthPayload.Broker {
        HealthPayload.Broker(
            connected: state.isConnected, queued: queuedMessageCount, published: statistics.messagesPublished,
            dropped: droppedMessageCount)
    }
}

/// The health report is retained: it goes out again at every connection.
extension HealthMonitor: BridgeHandler {
    func brokerConnected() { publishReport() }
}
