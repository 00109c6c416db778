import BlueZ
import BoardKit
import Config
import Logging
import MainLoop

/// `bluetooth.discovery`: keeps scanning and bridges every board of a known family that no
/// configured board claims, with an id derived from its address (`chessnut-aabbcc000001`).
/// Each board it adds is announced to every handler (``onAdopted``).
@MainActor
final class BoardAdoption: BridgeHandler {
    private let manager: BlueZManager
    private let boards: BridgeBoards
    private let reconnect: BoardReconnectPolicy
    private let logger: Logger
    private var scan: BlueZDiscoverySession?
    private var timer: LoopTimer?
    /// Called with the id of every board adopted.
    var onAdopted: ((String) -> Void)?

    init(manager: BlueZManager, boards: BridgeBoards, reconnect: BoardReconnectPolicy, logger: Logger) {
        self.manager = manager
        self.boards = boards
        self.reconnect = reconnect
        self.logger = logger
    }

    func start() {
        scan = manager.startDiscovery()
        timer = MainLoop.every(5, startingAfter: 2) { [weak self] in
            guard let self else { return }
            self.adopt(self.manager.discoveredBoards)
        }
    }

    func stop() {
        timer?.cancel()
        timer = nil
        scan?.stop()
        scan = nil
    }

    /// Bridges every board of `found` of a known family that no board claims yet.
    func adopt(_ found: [BlueZDiscoveredBoard]) {
        for found in found {
            guard let family = found.family, !boards.claims(address: found.address) else { continue }
            let id = family.rawValue + "-" + found.address.lowercased().filter { $0 != ":" }
            guard boards.session(id) == nil else { continue }
            let board = ConfiguredBoard(
                id: id, name: found.device.name, match: .address(found.address.uppercased()), family: family,
                adapter: found.adapter, orientation: .auto, reconnect: reconnect)
            do {
                try boards.add(board)
            } catch {
                logger.warning("cannot bridge a discovered board", [("board", id), ("error", "\(error)")])
                continue
            }
            logger.notice("bridging a discovered board", [("board", id), ("name", found.device.name)])
            boards.start(id, publishingRetained: true)
            onAdopted?(id)
        }
    }
}
