import Adapters
import BoardKit
import BoardLink
import FoundationEssentials

/// One link to one board: from the first `Connect` of an attempt to its end. A new one is
/// made for every attempt, with a fresh adapter, so nothing of a previous link leaks into the
/// next.
@MainActor
final class BlueZLink {
    let devicePath: String
    let adapterPath: String
    let address: String
    let name: String?
    let profile: BoardProfile
    let options: AdapterOptions

    /// The characteristic paths notifications are taken from.
    var notifyPaths: Set<String> = []
    /// The `AcquireNotify` sockets of those characteristics, by path (the others use
    /// `StartNotify`).
    var notifySockets: [String: BlueZNotifySocket] = [:]
    /// The service paths holding those characteristics (their removal ends the link).
    var gattPaths: Set<String> = []
    /// The characteristic written to.
    var writePath: String?
    /// The adapter's auxiliary characteristics found on the device, by path
    /// (``BoardKit/BoardAuxiliaryReading``).
    var auxiliaryPaths: [String: BoardAuxiliaryCharacteristic] = [:]
    /// The auxiliary characteristics with a `ReadValue` in flight.
    var pendingReads: Set<String> = []
    /// The negotiated MTU of the write characteristic, when exported.
    var mtu: Int?
    // The next four are read on every notification. Only main-actor code of this module
    // touches them, in short accesses; the one long access (`adapter` during its `feed`)
    // cannot reach the link again, the adapter being a value without references to it. So
    // they skip the run-time exclusivity bookkeeping (static checking still applies).

    /// The adapter of this link (made after the GATT objects are found).
    @exclusivity(unchecked) var adapter: (any BoardAdapter)?
    /// The paced writer of this link.
    @exclusivity(unchecked) var writer: PacedWriter?
    /// `Connect` was called (a failed attempt then sends `Disconnect` to clean up).
    var connectIssued = false
    /// BlueZ said the link is up (a later `Connected=false` ends it).
    var armed = false
    /// `.connected` was yielded.
    @exclusivity(unchecked) var isUp = false
    /// Why the link failed while it was being set up (checked after every step).
    var failure: BlueZLinkError?
    /// Torn down (idempotence).
    @exclusivity(unchecked) var isTornDown = false
    /// Bytes fed to the adapter (the health watch's sign of life).
    @exclusivity(unchecked) var bytesFed = 0
    /// Notifications that arrived after subscribing but before `.connected`.
    var early: [Data] = []
    /// The adapter said `.ready` or `.handshakeFailed` (the handshake is answered either way).
    @exclusivity(unchecked) var handshakeAnswered = false
    /// Fires when the handshake stays unanswered too long.
    var handshakeTimer: LinkTimer?

    init(device: BlueZDeviceInfo, profile: BoardProfile, options: AdapterOptions) {
        devicePath = device.path
        adapterPath = device.adapterPath
        adapterName = BlueZPath.adapterName(of: device.adapterPath) ?? device.adapterPath
        address = device.address
        name = device.advertisedName
        self.profile = profile
        self.options = options
    }

    /// Whether `event` is the board's answer to its handshake.
    static func answersHandshake(_ event: BoardEvent) -> Bool {
        switch event {
        case .ready, .handshakeFailed: true
        default: false
        }
    }

    /// The adapter's name (`hci0`), worked out once: every change BlueZ reports makes every
    /// transport publish its status again, and the split of the path showed in the profile.
    let adapterName: String

    /// Feeds one notification to the adapter in place (no copy of it) and queues the
    /// adapter's mandatory responses on the writer; returns the adapter's events (none
    /// without an adapter).
    func feed(_ bytes: Data) -> [BoardEvent] {
        bytesFed &+= bytes.count
        guard let (events, responses) = adapter?.feedAndDrain(bytes) else { return [] }
        if !responses.isEmpty, let writer {
            for response in responses { writer.enqueueResponse(response) }
        }
        if !handshakeAnswered, events.contains(where: Self.answersHandshake) {
            handshakeAnswered = true
            handshakeTimer?.cancel()
            handshakeTimer = nil
        }
        return events
    }

    /// One notification: fed to the adapter once the link is up (its events returned; the
    /// caller delivers them), kept for then before.
    func receive(_ bytes: Data) -> [BoardEvent] {
        guard isUp else {
            keepEarly(bytes)
            return []
        }
        return feed(bytes)
    }

    /// Keeps a notification that arrived before `.connected` (at most 64 of them, only once
    /// the adapter exists), as a compact copy: `bytes` may share a receive buffer.
    private func keepEarly(_ bytes: Data) {
        guard adapter != nil, early.count < 64 else { return }
        early.append(bytes.withUnsafeBytes { raw in Data(raw) })
    }

    /// Feeds a value of an auxiliary characteristic to the adapter in place; its events
    /// (none when the adapter reads no auxiliary characteristics).
    func feedAuxiliary(_ value: Data, of characteristic: BoardAuxiliaryCharacteristic) -> [BoardEvent] {
        guard var reading = adapter as? any BoardAuxiliaryReading else { return [] }
        let events = reading.feed(value: value, of: characteristic)
        adapter = reading
        return events
    }

    /// Throws the recorded failure (or cancellation).
    func check() throws(BlueZLinkError) {
        if let failure { throw failure }
        if Task.isCancelled { throw .cancelled }
    }
}

extension BoardAdapter {
    /// ``BoardKit/BoardAdapter/feed(bytes:)`` then
    /// ``BoardKit/BoardAdapter/takePendingResponses()``: one in-place access to an adapter
    /// held in an existential (each access projects its box and checks its uniqueness).
    fileprivate mutating func feedAndDrain(_ bytes: Data) -> (events: [BoardEvent], responses: [Data]) {
        let events = feed(bytes: bytes)
        return (events, takePendingResponses())
    }
}
