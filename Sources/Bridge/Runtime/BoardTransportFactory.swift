import Adapters
public import BlueZ
import BoardKit
import BoardLink
import Config
import FoundationEssentials
import Serial
public import SerialTransport

/// What the bridge asks of a board's transport beyond ``BoardKit/BoardTransport``: keep the
/// link up, report its state with the reconnect details, close it cleanly at shutdown.
/// Bluetooth LE (``BlueZBoardTransport``), serial (``SerialBoardTransport``) and Bluetooth
/// Classic (``BlueZRFCOMMTransport``) boards are all driven through it alike.
@MainActor
protocol BridgedBoardTransport: BoardTransport {
    /// Connects and keeps the link up per the board's reconnect policy; again after the
    /// policy gave up or after ``BoardKit/BoardTransport/disconnect()``.
    func start()
    /// Closes the link and waits until it is closed (bounded by the transport).
    func close() async
    /// Reports every later change of state, with the reconnect details, to `handler`.
    func observeStatus(_ handler: @escaping @MainActor (BoardLinkStatus) -> Void)
    /// Whether the first link continues a game the board keeps itself (a restarted bridge);
    /// transports whose boards keep no game of their own (DGT: the same handshake either
    /// way) ignore it.
    func resumeBoardSession(_ resumes: Bool)
}

extension BlueZBoardTransport: BridgedBoardTransport {
    func observeStatus(_ handler: @escaping @MainActor (BoardLinkStatus) -> Void) {
        onStatusChange = handler
    }

    func resumeBoardSession(_ resumes: Bool) {
        resumesBoardSession = resumes
    }
}

extension SerialBoardTransport: BridgedBoardTransport {
    func observeStatus(_ handler: @escaping @MainActor (BoardLinkStatus) -> Void) {
        onStateChange = { [weak self] state in
            guard let self else { return }
            var attempt: Int?
            if case .reconnecting(let value) = state { attempt = value }
            handler(
                BoardLinkStatus(
                    state: state, reconnectAttempt: attempt, maxAttempts: policy.maxAttempts, nextDelay: nextDelay,
                    lastError: lastError, deviceName: path))
        }
    }

    func resumeBoardSession(_ resumes: Bool) {}
}

extension BlueZRFCOMMTransport: BridgedBoardTransport {
    func observeStatus(_ handler: @escaping @MainActor (BoardLinkStatus) -> Void) {
        onStateChange = { [weak self] state in
            guard let self else { return }
            var attempt: Int?
            if case .reconnecting(let value) = state { attempt = value }
            handler(
                BoardLinkStatus(
                    state: state, reconnectAttempt: attempt, maxAttempts: policy.maxAttempts, nextDelay: nextDelay,
                    lastError: lastError, deviceName: connectedDeviceName, deviceAddress: address,
                    adapter: adapterName))
        }
    }

    func resumeBoardSession(_ resumes: Bool) {}
}

// A stalled serial or RFCOMM board (connected, silent) is recycled like a Bluetooth LE one.
extension SerialBoardTransport: BoardLinkHealthReporting {
    /// No radio: no signal strength.
    public var linkRSSI: Int? { nil }
    /// A serial line drops no acknowledged writes (it has none).
    public var linkDroppedWrites: Int { 0 }
}

extension BlueZRFCOMMTransport: BoardLinkHealthReporting {
    /// Not read for Classic links.
    public var linkRSSI: Int? { nil }
    /// A stream socket has no acknowledged writes to drop.
    public var linkDroppedWrites: Int { 0 }
}

/// Makes each configured board's transport: a board with `serial:` gets a
/// ``SerialBoardTransport`` on that device, a DGT board with `address:` a
/// ``BlueZRFCOMMTransport`` (all of them sharing one ``BlueZSerialProfile`` on the manager),
/// every other board a ``BlueZBoardTransport``.
@MainActor
final class BoardTransportFactory {
    /// The manager every Bluetooth transport uses.
    let manager: BlueZManager
    /// Timeouts and the notification method for Bluetooth LE boards.
    let bluetooth: BluetoothConfiguration
    private var serialProfile: BlueZSerialProfile?

    /// A factory for the boards behind `manager`.
    init(manager: BlueZManager, bluetooth: BluetoothConfiguration) {
        self.manager = manager
        self.bluetooth = bluetooth
    }

    /// The transport for `board`; a Certabo board's adapters are made with the tags kept in
    /// `calibration` when each link comes up.
    /// - Throws: ``AdapterFactoryError`` for invalid adapter options (a bad developer key).
    func makeTransport(
        for board: ConfiguredBoard, calibration: BoardCalibrationKeeper? = nil
    ) throws -> any BridgedBoardTransport {
        if let path = board.serial {
            // Only boards of the serial families are configured with `serial:` (the
            // configuration checks it), each at its family's line speed.
            let family = board.family
            let baudRate = AdapterFactory.baudRate(for: family).flatMap(SerialPort.BaudRate.init) ?? .b9600
            var options = AdapterOptions(dgtModel: Self.dgtModel(board, bluetooth: false))
            return SerialBoardTransport(
                path: path, baudRate: baudRate,
                lowersDataTerminalReady: AdapterFactory.lowersDataTerminalReady(for: family),
                policy: board.reconnect, scheduler: manager.scheduler,
                logger: manager.logger.prefixed("[\(board.id)] ")
            ) {
                options.calibration = calibration?.table
                return AdapterFactory.makeSerialAdapter(for: family, options: options)
            }
        }
        if board.family == .dgt, case .address(let address) = board.match {
            let profile = serialProfile ?? BlueZSerialProfile(manager: manager)
            serialProfile = profile
            let model = Self.dgtModel(board, bluetooth: true)
            return BlueZRFCOMMTransport(
                manager: manager, profile: profile, address: address, adapter: board.adapter,
                policy: board.reconnect, connectTimeout: bluetooth.connectTimeout, label: board.id,
                makeAdapter: { DGTAdapter(model: model) })
        }
        let key = board.developerKeyBytes().map { Data($0) }
        return try BlueZBoardTransport(
            manager: manager, family: board.family, match: board.match, adapter: board.adapter,
            policy: board.reconnect, options: AdapterOptions(developerKey: key),
            settings: BlueZTransportSettings(
                connectTimeout: bluetooth.connectTimeout,
                notifyMethod: bluetooth.notifyMethod == .startNotify ? .startNotify : .acquireNotify),
            label: board.id)
    }

    /// The DGT model a board's `model` names (`Revelation II` has LEDs); else the plain
    /// board, or the Bluetooth e-Board (battery) over RFCOMM.
    static func dgtModel(_ board: ConfiguredBoard, bluetooth: Bool) -> DGTAdapter.Model {
        if board.model?.lowercased().contains("revelation") == true { return .revelationII }
        return bluetooth ? .bluetooth : .classic
    }
}
