public import BoardKit

/// How a board family shows itself over Bluetooth LE: what identifies it in a scan and
/// which GATT service and characteristics carry its protocol.
///
/// UUIDs are lower-case 128-bit strings as BlueZ spells them
/// (`"6e400001-b5a3-f393-e0a9-e50e24dcca9e"`).
public struct BoardProfile: Hashable, Sendable {
    /// How the host writes to the write characteristic.
    public enum WriteType: String, Hashable, Sendable {
        /// ATT Write Request: the board acknowledges at link level.
        case withResponse = "request"
        /// ATT Write Command: no link-level acknowledgement.
        case withoutResponse = "command"
    }

    /// The family this profile describes.
    public var family: BoardFamily
    /// Advertised-name prefixes that identify the family (matched case-insensitively).
    public var namePrefixes: [String]
    /// Advertised service UUIDs that identify the family (any one matches).
    public var advertisedServiceUUIDs: [String]
    /// The GATT service that carries the protocol.
    public var serviceUUID: String
    /// Characteristics whose notifications the transport subscribes to, in order.
    public var notifyCharacteristicUUIDs: [String]
    /// The characteristic commands are written to.
    public var writeCharacteristicUUID: String
    /// Further services the board exposes (for example a second Chessnut service whose
    /// characteristics are also subscribed to), keyed by service UUID, listing their
    /// characteristics. Empty for single-service boards.
    public var additionalServices: [String: [String]]
    /// The write type the firmware expects.
    public var writeType: WriteType

    /// Creates a profile.
    public init(
        family: BoardFamily,
        namePrefixes: [String],
        advertisedServiceUUIDs: [String],
        serviceUUID: String,
        notifyCharacteristicUUIDs: [String],
        writeCharacteristicUUID: String,
        additionalServices: [String: [String]] = [:],
        writeType: WriteType
    ) {
        self.family = family
        self.namePrefixes = namePrefixes
        self.advertisedServiceUUIDs = advertisedServiceUUIDs
        self.serviceUUID = serviceUUID
        self.notifyCharacteristicUUIDs = notifyCharacteristicUUIDs
        self.writeCharacteristicUUID = writeCharacteristicUUID
        self.additionalServices = additionalServices
        self.writeType = writeType
    }

    /// The profile of a board on a serial line (USB, RS232, RFCOMM): it matches no
    /// advertisement and names no GATT service.
    public static func serialLine(_ family: BoardFamily) -> BoardProfile {
        BoardProfile(
            family: family, namePrefixes: [], advertisedServiceUUIDs: [], serviceUUID: "",
            notifyCharacteristicUUIDs: [], writeCharacteristicUUID: "", writeType: .withoutResponse)
    }

    /// Whether an advertisement with `name` and `serviceUUIDs` belongs to this family.
    public func matches(name: String?, serviceUUIDs: [String]) -> Bool {
        if let name {
            let lowered = name.lowercased()
            if namePrefixes.contains(where: { lowered.hasPrefix($0.lowercased()) }) { return true }
        }
        let advertised = Set(serviceUUIDs.map { $0.lowercased() })
        return advertisedServiceUUIDs.contains { advertised.contains($0.lowercased()) }
    }
}
