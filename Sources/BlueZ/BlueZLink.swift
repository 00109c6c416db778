import Adapters
import BoardKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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
    /// The negotiated MTU of the write characteristic, when exported.
    var mtu: Int?
    /// The adapter of this link (made after the GATT objects are found).
    var adapter: (any BoardAdapter)?
    /// The paced writer of this link.
    var writer: BlueZPacedWriter?
    /// `Connect` was called (a failed attempt then sends `Disconnect` to clean up).
    var connectIssued = false
    /// BlueZ said the link is up (a later `Connected=false` ends it).
    var armed = false
    /// `.connected` was yielded.
    var isUp = false
    /// Why the link failed while it was being set up (checked after every step).
    var failure: BlueZLinkError?
    /// Torn down (idempotence).
    var isTornDown = false
    /// Notifications that arrived after subscribing but before `.connected`.
    var early: [Data] = []

    init(device: BlueZDeviceInfo, profile: BoardProfile, options: AdapterOptions) {
        devicePath = device.path
        adapterPath = device.adapterPath
        address = device.address
        name = device.advertisedName
        self.profile = profile
        self.options = options
    }

    var adapterName: String {
        BlueZPath.adapterName(of: adapterPath) ?? adapterPath
    }

    /// Throws the recorded failure (or cancellation).
    func check() throws(BlueZLinkError) {
        if let failure { throw failure }
        if Task.isCancelled { throw .cancelled }
    }
}
