import BlueZ
import Config
import MainLoop

/// `bluetooth.discovery`: boards of a known family that no configured board claims are bridged
/// as they are found.
extension BridgeApp {
    /// `bluetooth.discovery`: keeps scanning and bridges every board of a known family
    /// that no configured board claims, with an id derived from its address
    /// (`chessnut-aabbcc000001`).
    func startDiscoveryMode() {
        discoveryScan = manager.startDiscovery()
        discoveryTimer = MainLoop.every(5, startingAfter: 2) { [weak self] in self?.adoptDiscoveredBoards() }
    }

    func adoptDiscoveredBoards() {
        let claimed = Set(boards.compactMap(\.address).map { $0.uppercased() })
        for found in manager.discoveredBoards {
            guard let family = found.family, !claimed.contains(found.address.uppercased()) else { continue }
            let id = family.rawValue + "-" + found.address.lowercased().filter { $0 != ":" }
            guard sessions[id] == nil else { continue }
            let board = ConfiguredBoard(
                id: id, name: found.device.name, match: .address(found.address.uppercased()), family: family,
                adapter: found.adapter, orientation: .auto, reconnect: configuration.reconnect)
            do {
                try addSession(for: board)
                logger.notice("bridging a discovered board", [("board", id), ("name", found.device.name)])
                startSession(id)
                reportConflicts(peers.setOwnBoards(boards.map(\.id)))
                publishInfo()
                if let discovery {
                    for message in discovery.discoveryMessages(for: descriptor(board), bridge: bridge) {
                        publisher.publish(message)
                    }
                }
            } catch {
                logger.warning("cannot bridge a discovered board", [("board", id), ("error", "\(error)")])
            }
        }
    }
}
