import Adapters
import BoardKit
import DBus
import FoundationEssentials

/// Characteristics outside the adapter's wire stream (``BoardKit/BoardAuxiliaryReading``):
/// the adapter says what to read, the transport finds them, subscribes to the notifying ones,
/// reads them on the adapter's ``BoardKit/BoardAuxiliaryCharacteristic/readCommand`` and
/// feeds every value to the adapter. None of them is needed for the link: a missing one, a
/// refused subscription or a failed read is logged and the link stays up.
extension BlueZBoardTransport {
    /// Finds the link adapter's auxiliary characteristics among the device's characteristics
    /// and routes their `Value` changes here.
    func resolveAuxiliary(_ link: BlueZLink) {
        guard let reading = templateAdapter as? any BoardAuxiliaryReading else { return }
        let services = Dictionary(
            manager.model.services(ofDevice: link.devicePath).map { ($0.path, $0.uuid) },
            uniquingKeysWith: { a, _ in a })
        let characteristics = manager.model.characteristics(ofDevice: link.devicePath)
        var found: [String: BoardAuxiliaryCharacteristic] = [:]
        for wanted in reading.auxiliaryCharacteristics {
            let match = characteristics.first {
                $0.uuid == wanted.characteristicUUID && services[$0.servicePath] == wanted.serviceUUID
            }
            if let match {
                found[match.path] = wanted
            } else {
                logger.info("no characteristic \(wanted.characteristicUUID) on \(link.address); not read")
            }
        }
        link.auxiliaryPaths = found
        manager.route(found.keys, to: self)
    }

    /// `StartNotify` on every auxiliary characteristic that notifies; failures are logged.
    func subscribeAuxiliary(_ link: BlueZLink) async {
        for (path, characteristic) in link.auxiliaryPaths.sorted(by: { $0.key < $1.key }) where characteristic.notifies
        {
            guard manager.model.characteristics[path]?.flags.contains("notify") ?? false else { continue }
            do throws(DBusError) {
                _ = try await manager.call(
                    path: path, interface: BlueZNames.characteristicInterface, member: "StartNotify")
            } catch {
                logger.info("StartNotify on \(characteristic.characteristicUUID) failed (\(error)); read only")
            }
        }
    }

    /// Reads every auxiliary characteristic whose read command is `command`; `false` when
    /// there is none on the link.
    func readAuxiliary(for command: BoardCommand, on link: BlueZLink) -> Bool {
        let paths = link.auxiliaryPaths.filter { $0.value.readCommand == command }.keys.sorted()
        guard !paths.isEmpty else { return false }
        for path in paths where !link.pendingReads.contains(path) {
            link.pendingReads.insert(path)
            Task { @MainActor [weak self, link] in
                let reply: [DBusValue]
                do throws(DBusError) {
                    reply =
                        try await self?.manager.call(
                            path: path, interface: BlueZNames.characteristicInterface, member: "ReadValue",
                            body: [.propertyDictionary([:])]) ?? []
                } catch {
                    link.pendingReads.remove(path)
                    self?.logger.info("reading \(path) failed: \(error)")
                    return
                }
                link.pendingReads.remove(path)
                guard let self, self.link === link, link.isUp, let bytes = reply.first?.bytesValue else { return }
                self.receiveAuxiliary(Data(bytes), path: path, on: link)
            }
        }
        return true
    }

    /// Whether the link has an auxiliary characteristic read by `command`.
    func canReadAuxiliary(for command: BoardCommand, on link: BlueZLink) -> Bool {
        link.auxiliaryPaths.values.contains { $0.readCommand == command }
    }

    /// A value of the auxiliary characteristic at `path` (a notification, or a read result:
    /// the `Value` change BlueZ signals while the read is pending is left to the reply).
    func receiveAuxiliary(_ bytes: Data, path: String, on link: BlueZLink, isSignal: Bool = false) {
        guard let characteristic = link.auxiliaryPaths[path], link.isUp else { return }
        if isSignal && link.pendingReads.contains(path) { return }
        let events = link.feedAuxiliary(bytes, of: characteristic)
        if !events.isEmpty { deliver(events) }
    }
}
