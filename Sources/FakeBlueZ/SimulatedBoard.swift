import Adapters
import BoardKit
import Emulation
import FoundationEssentials
import MainLoop

/// One simulated board: the physical object (pieces, battery, firmware personality), its
/// radio presence (advertising, RSSI, MTU, injected connect failures), and what the host did
/// to it (the write log).
@MainActor
final class SimulatedBoard {
    /// The most writes kept in the log (the oldest go first).
    static let writeLogLimit = 50_000

    unowned let sim: FakeBlueZ
    let configuration: BoardConfiguration
    let id: String
    let name: String
    let address: String
    let family: BoardFamily
    let profile: BoardProfile
    let layout: GattLayout
    let mtu: Int
    let adapterName: String
    var personality: any BoardPersonality
    var game: SimulatedGame
    var isPresent: Bool
    var rssi: Int
    var batteryPercent: Int
    var isCharging: Bool
    /// The firmware ignores every write (`silent=true`): the handshake is never answered.
    let isSilent: Bool
    var pendingOutcomes: [ConnectOutcome] = []
    var writes: [WriteRecord] = []
    var droppedNotifications = 0
    /// Of those, the ones an `AcquireNotify` socket had no room for (the client read too slowly).
    var socketFullNotifications = 0
    /// How many of the next notifications are lost (``FakeBlueZ/loseNotifications(board:count:)``).
    var notificationsToLose = 0
    var oversizeNotifications = 0
    var notificationsSent = 0
    /// When the last notification was sent (`CLOCK_BOOTTIME` nanoseconds).
    var lastNotificationTime: UInt64 = 0
    weak var device: FakeDevice?
    /// A serial board's (`pty`, `rfcomm`) way to the host while its line is up.
    var serialSend: (@MainActor (Data) -> Void)?
    /// A `pty` board's line.
    var terminalLine: SimulatedTerminalLine?
    /// An `rfcomm` board's Classic device.
    weak var classicDevice: FakeClassicDevice?
    private(set) var isLinked = false
    private var linkEstablishedSent = false
    private var tickTimer: RepeatingTimer?
    var scriptTask: Task<Void, Never>?
    var autoplayPace: Double?

    init(sim: FakeBlueZ, configuration: BoardConfiguration) throws(FakeBlueZError) {
        self.sim = sim
        self.configuration = configuration
        id = configuration.effectiveID
        name = configuration.effectiveName
        address = configuration.address
        family = configuration.family
        mtu = configuration.effectiveMTU
        adapterName = configuration.adapter
        isPresent = configuration.present
        rssi = configuration.rssi
        batteryPercent = configuration.battery
        isCharging = configuration.charging
        isSilent = configuration.silent
        game = try SimulatedGame(fen: configuration.fen)
        personality = PersonalityFactory.makePersonality(
            family: family, name: name, board: game.position.snapshot, isFlipped: configuration.flipped,
            retransmitInterval: configuration.retransmit,
            developerKey: configuration.developerKey.flatMap { HexBytes.parse($0) }.map { Data($0) },
            rgbLEDs: configuration.leds == "rgb", cppDialect: configuration.chessPeripheralDialect)
        profile = personality.profile
        layout = GattLayout(profile: profile, name: name, manufacturer: family.manufacturer)
        if batteryPercent != 100 || isCharging {
            _ = personality.perform(.setBattery(percent: batteryPercent, charging: isCharging), at: sim.clock.now())
        }
    }

    /// The path its device object has (or would have).
    var devicePath: String { "/org/bluez/\(adapterName)/" + BluetoothAddress.pathElement(address) }

    /// One advertisement report: the configured RSSI with a little random jitter.
    func advertisement(using random: inout SimulatorRandom) -> Advertisement {
        let jitter = sim.behavior.rssiJitter
        let offset = jitter > 0 ? Int.random(in: -jitter...jitter, using: &random) : 0
        return Advertisement(
            address: address, name: name, rssi: Int16(clamping: min(20, max(-127, rssi + offset))),
            txPower: configuration.txPower.map { Int16(clamping: $0) }, uuids: configuration.advertisedUUIDs,
            manufacturerData: configuration.advertisedManufacturerData,
            serviceData: configuration.advertisedServiceData)
    }

    /// The outcome of the next `Connect`: an injected failure, else success when present and
    /// a timeout when not.
    func takeConnectOutcome() -> ConnectOutcome {
        if !pendingOutcomes.isEmpty { return pendingOutcomes.removeFirst() }
        return isPresent ? .success : .timeout
    }

    // MARK: Link

    /// A link is up (before GATT discovery): ticks start.
    func linkUp() {
        isLinked = true
        linkEstablishedSent = false
        tickTimer?.cancel()
        if let interval = personality.tickInterval, interval > 0 {
            tickTimer = RepeatingTimer(interval: interval) { [weak self] in self?.tick() }
        }
    }

    /// The host subscribed on this link: the firmware learns of the link
    /// (`linkEstablished`), once per link.
    func subscribed() {
        guard isLinked, !linkEstablishedSent else { return }
        linkEstablishedSent = true
        emit(personality.linkEstablished(at: sim.clock.now()))
    }

    /// The link is gone: the firmware forgets per-link state; ticks stop.
    func linkDown() {
        guard isLinked else { return }
        isLinked = false
        tickTimer?.cancel()
        tickTimer = nil
        personality.linkLost()
    }

    /// A write arrived: logged with its time; writes to the profile's write characteristic go
    /// to the firmware, whose notifications are returned (the caller sends them after the
    /// write's reply).
    func receiveWrite(_ bytes: [UInt8], characteristic: String, type: String) -> [Data] {
        guard logWrite(bytes, characteristic: characteristic, type: type) else { return [] }
        return firmwareHandles(bytes)
    }

    /// Logs a write as it arrives; whether it goes to the firmware (the profile's write
    /// characteristic, a board that is not silent).
    func logWrite(_ bytes: [UInt8], characteristic: String, type: String) -> Bool {
        writes.append(WriteRecord(time: sim.clock.now(), characteristic: characteristic, type: type, bytes: bytes))
        if writes.count > Self.writeLogLimit + 1000 { writes.removeFirst(writes.count - Self.writeLogLimit) }
        return characteristic == profile.writeCharacteristicUUID.lowercased() && !isSilent
    }

    /// The firmware handles a logged write now; its notifications are returned, reflecting
    /// the board as it stands now.
    func firmwareHandles(_ bytes: [UInt8]) -> [Data] {
        let time = sim.clock.now()
        var frames: [Data] = []
        if isLinked && !linkEstablishedSent {
            linkEstablishedSent = true
            frames += personality.linkEstablished(at: time)
        }
        frames += personality.handleWrite(Data(bytes), at: time)
        return frames
    }

    /// A person acts on the board; the firmware's notifications go out.
    func perform(_ action: PhysicalAction) {
        if case .setBattery(let percent, let charging) = action {
            batteryPercent = min(max(percent, 0), 100)
            isCharging = charging
            device?.notifyBatteryLevel()
        }
        emit(personality.perform(action, at: sim.clock.now()))
    }

    private func tick() {
        guard isLinked else { return }
        emit(personality.tick(at: sim.clock.now()))
    }

    /// Sends notifications through the device (dropped and counted without one), then lets
    /// firmware that gave up on the host drop the link (ChessUp after unacknowledged floods).
    func emit(_ frames: [Data]) {
        var frames = frames[...]
        if notificationsToLose > 0, !frames.isEmpty {
            let lost = min(notificationsToLose, frames.count)
            notificationsToLose -= lost
            droppedNotifications += lost
            frames = frames.dropFirst(lost)
            sim.log("board \(id): \(lost) notification(s) lost")
        }
        if !frames.isEmpty {
            if isSerial {
                if let serialSend {
                    for frame in frames { serialSend(frame) }
                    notificationsSent += frames.count
                    lastNotificationTime = BootClock.nanoseconds()
                } else {
                    droppedNotifications += frames.count
                }
            } else if let device {
                device.deliverNotifications(Array(frames))
            } else {
                droppedNotifications += frames.count
            }
        }
        if isLinked, let chessUp = personality as? ChessUpPersonality, chessUp.wantsToDropLink {
            sim.log("board \(id): firmware drops the link")
            device?.dropLink(reason: .remote)
        }
    }

    /// Stops ticks and scripts (removal, shutdown).
    func stopAll() {
        tickTimer?.cancel()
        tickTimer = nil
        scriptTask?.cancel()
        scriptTask = nil
        autoplayPace = nil
    }

    // MARK: Reports

    var status: BoardStatus {
        BoardStatus(
            id: id, name: name, family: family.rawValue, address: address, adapter: adapterName,
            path: devicePath, link: terminalLine?.linkPath, exported: device != nil || classicDevice != nil,
            connected: isSerial ? isLinked : device?.hasLink ?? false,
            disconnecting: device?.state == .disconnecting, present: isPresent, rssi: rssi, mtu: mtu,
            battery: batteryPercent, charging: isCharging, placement: personality.board.fenPlacement,
            playing: scriptTask != nil, autoplay: autoplayPace ?? 0, writes: writes.count)
    }

    var violationReport: ViolationReport {
        let violations = personality.violations
        return ViolationReport(
            writesTooClose: violations.writesTooClose, missingAcks: violations.missingAcks,
            malformedCommands: violations.malformedCommands, commandsBeforeUnlock: violations.commandsBeforeUnlock,
            total: violations.total, oversizeNotifications: oversizeNotifications,
            droppedNotifications: droppedNotifications, socketFullNotifications: socketFullNotifications,
            notificationsSent: notificationsSent)
    }
}
