import BoardKit
import DBus
import FoundationEssentials

/// The Bluetooth Classic side of the fake: ProfileManager1's registrations, the Classic
/// boards, and their control object ``controlPath`` (interface ``controlInterface``):
///
/// - `AddClassicBoard(s id, s address, s name, s adapter) → o`: a paired SPP board with an
///   echoing ``EchoSerialPersonality`` (or the personality given to ``addBoard(id:address:name:adapter:personality:)``);
/// - `DropClassicLink(s id)`: the board goes away mid-link (the host reads EOF, no
///   `RequestDisconnection`, as with a real RFCOMM drop);
/// - `RequestClassicDisconnection(s id)`: bluetoothd disconnects the profile
///   (`RequestDisconnection`, then the link closes);
/// - `ReleaseProfiles() → u`: bluetoothd exiting: `Release()` to every profile;
/// - `SetClassicPresent(s id, b)`: an absent board fails pages (`br-connection-page-timeout`);
/// - `SendToHost(s id, ay)`, `Received(s id) → ay`, `ClearReceived(s id)`, `SetEcho(s id, b)`;
/// - `ClassicStatus(s id) → a{sv}` (`Connected`, `ConnectCount`, `RequestDisconnectionCount`,
///   `OpenCount`), `ListProfiles() → a(sos)` (owner, path, UUID).
@MainActor
final class FakeClassicWorld {
    /// The control object's path.
    static let controlPath = "/org/boardbridge/sim/classic"
    /// The control interface.
    static let controlInterface = "org.boardbridge.ClassicSimulator1"

    let profiles = FakeProfileManager()
    private(set) var boards: [FakeClassicDevice] = []
    unowned let sim: FakeBlueZ

    init(sim: FakeBlueZ) {
        self.sim = sim
        profiles.onRemoved = { [weak self] registration in
            for board in self?.boards ?? [] { board.profileRemoved(registration) }
        }
    }

    /// Registers the control object.
    func exportControl() throws(DBusError) {
        try sim.connection.registerObject(at: Self.controlPath) { [weak self] invocation in
            guard let self else { return invocation.fail(DBusError.noSuchMethod(invocation.message)) }
            self.handleControl(invocation)
        }
    }

    func stopAll() {
        for board in boards { board.drop(reason: "simulator shut down") }
        sim.connection.unregisterObject(at: Self.controlPath)
    }

    func clientLeft(_ name: String) {
        profiles.clientLeft(name)
    }

    /// Removes a Classic board: its link drops, its device object goes.
    func removeBoard(_ board: FakeClassicDevice) {
        board.drop(reason: "board removed")
        board.remove()
        boards.removeAll { $0 === board }
    }

    /// Adds a Classic board on `adapter` (name or path).
    @discardableResult
    func addBoard(
        id: String, address: String, name: String, adapter: String,
        personality: any SerialBoardPersonality = EchoSerialPersonality()
    ) throws(FakeBlueZError) -> FakeClassicDevice {
        guard let normalized = BluetoothAddress.normalized(address) else {
            throw .invalidConfiguration("address '\(address)'")
        }
        guard let host = sim.adapter(named: adapter) else { throw .noSuchAdapter(adapter) }
        guard !boards.contains(where: { $0.id == id || $0.address == normalized }) else { throw .duplicateBoard(id) }
        let board = FakeClassicDevice(
            sim: sim, id: id, address: normalized, name: name, adapterPath: host.path, personality: personality)
        do throws(DBusError) {
            try board.export()
        } catch {
            throw .bus(error)
        }
        boards.append(board)
        sim.log("classic board \(id): '\(name)' at \(normalized) on \(host.name) (SPP)")
        return board
    }

    func board(_ id: String) throws(FakeBlueZError) -> FakeClassicDevice {
        guard let board = boards.first(where: { $0.id == id || $0.address == BluetoothAddress.normalized(id) }) else {
            throw .noSuchBoard(id)
        }
        return board
    }

    private func echo(_ board: FakeClassicDevice) throws(FakeBlueZError) -> EchoSerialPersonality {
        guard let echo = board.personality as? EchoSerialPersonality else {
            throw .invalidConfiguration("board \(board.id) has no scripted personality")
        }
        return echo
    }

    private func handleControl(_ invocation: DBusMethodInvocation) {
        let body = invocation.body
        func string(_ index: Int) -> String { index < body.count ? body[index].stringValue ?? "" : "" }
        do throws(FakeBlueZError) {
            switch invocation.member {
            case "AddClassicBoard":
                let board = try addBoard(id: string(0), address: string(1), name: string(2), adapter: string(3))
                invocation.reply([.objectPath(board.path)])
            case "DropClassicLink":
                try board(string(0)).drop(reason: "dropped by the simulator")
                invocation.reply()
            case "RequestClassicDisconnection":
                try board(string(0)).requestDisconnection { invocation.reply() }
            case "ReleaseProfiles":
                invocation.reply([.uint32(UInt32(profiles.releaseAll(on: sim.connection)))])
            case "SetClassicPresent":
                let board = try board(string(0))
                board.isPresent = body.count > 1 ? body[1].boolValue ?? true : true
                if !board.isPresent { board.drop(reason: "board went away") }
                invocation.reply()
            case "SendToHost":
                let sent = try board(string(0)).sendToHost(Data(body.count > 1 ? body[1].bytesValue ?? [] : []))
                invocation.reply([.bool(sent)])
            case "Received":
                invocation.reply([.bytes(Array(try echo(board(string(0))).receivedBytes))])
            case "ClearReceived":
                try echo(board(string(0))).clearReceived()
                invocation.reply()
            case "SetEcho":
                try echo(board(string(0))).echoes = body.count > 1 ? body[1].boolValue ?? true : true
                invocation.reply()
            case "ClassicStatus":
                let board = try board(string(0))
                let open = (board.personality as? EchoSerialPersonality)?.openCount ?? 0
                invocation.reply([
                    .propertyDictionary([
                        ("Connected", .bool(board.isConnected)), ("ConnectCount", .uint32(UInt32(board.connectCount))),
                        ("RequestDisconnectionCount", .uint32(UInt32(board.requestDisconnectionCount))),
                        ("OpenCount", .uint32(UInt32(open))),
                    ])
                ])
            case "ListProfiles":
                invocation.reply([
                    .array(
                        "(sos)",
                        profiles.registrations.map {
                            .struct([.string($0.owner), .objectPath($0.path), .string($0.uuid)])
                        })
                ])
            default:
                invocation.fail(DBusError.noSuchMethod(invocation.message))
            }
        } catch {
            invocation.fail(DBusError(name: "org.boardbridge.Error.Simulator", message: error.description))
        }
    }
}
