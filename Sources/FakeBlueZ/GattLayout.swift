import Adapters
import BoardKit

/// The attribute table a simulated board exposes, with handles laid out the way a real GATT
/// server numbers them: each service's handle, then per characteristic its declaration,
/// its value (declaration + 1) and, for notify/indicate, its CCCD (value + 1).
///
/// Services in order: Generic Access (0x1800), Generic Attribute (0x1801, Service Changed),
/// Device Information (0x180A), then the board's profile services, then — for families that
/// have one (ChessUp, reference §2.1) — the Battery Service (0x180F) with its Battery Level
/// (0x2A19, read and notify; its value is the board's battery, see ``batteryLevelUUID``).
/// GAP and DIS are claimed by BlueZ plugins: exported read-only from 5.80, hidden before
/// (their handles stay taken).
struct GattLayout: Hashable, Sendable {
    /// One descriptor (only CCCDs here).
    struct Descriptor: Hashable, Sendable {
        var handle: UInt16
        var uuid: String
    }

    /// One characteristic.
    struct Characteristic: Hashable, Sendable {
        /// The declaration handle (the object path and `Handle` use it).
        var handle: UInt16
        var uuid: String
        var flags: [String]
        var descriptors: [Descriptor]
        /// The value a read returns (static values of GAP/DIS), if readable.
        var readValue: [UInt8]?

        var canNotify: Bool { flags.contains("notify") || flags.contains("indicate") }
        var canRead: Bool { flags.contains("read") }
        var canWrite: Bool { flags.contains("write") || flags.contains("write-without-response") }
    }

    /// One primary service.
    struct Service: Hashable, Sendable {
        var handle: UInt16
        var uuid: String
        /// Claimed by a BlueZ plugin: exported read-only, writes are not authorized.
        var isClaimed: Bool
        var characteristics: [Characteristic]
    }

    /// The CCCD UUID.
    static let cccdUUID = BluetoothUUID.assigned(0x2902)
    /// The Battery Level characteristic: reads return, and notifications carry, the board's
    /// battery percentage (one byte).
    static let batteryLevelUUID = BluetoothUUID.assigned(0x2A19)

    /// The Chessnut's third service (8281: write 8282, notify 8283).
    static let chessnutFileService = "1b7e8281-2877-41c3-b46e-cf057c562023"

    /// Whether boards of `family` have the GATT Battery Service (ChessUp does; the others
    /// report their battery on their wire protocol).
    static func hasBatteryService(_ family: BoardFamily) -> Bool { family == .chessUp }

    var services: [Service]

    /// The layout for a board of `profile` called `name`.
    init(profile: BoardProfile, name: String, manufacturer: String) {
        var builder = Builder()
        builder.addService(
            BluetoothUUID.assigned(0x1800), claimed: true,
            [
                (BluetoothUUID.assigned(0x2A00), ["read"], Array(name.utf8)),
                (BluetoothUUID.assigned(0x2A01), ["read"], [0x00, 0x00]),
            ])
        builder.addService(
            BluetoothUUID.assigned(0x1801), claimed: false, [(BluetoothUUID.assigned(0x2A05), ["indicate"], nil)])
        builder.addService(
            BluetoothUUID.assigned(0x180A), claimed: true,
            [
                (BluetoothUUID.assigned(0x2A29), ["read"], Array(manufacturer.utf8)),
                (BluetoothUUID.assigned(0x2A24), ["read"], Array(name.utf8)),
            ])
        let elsewhere = Set(profile.additionalServices.values.flatMap { $0 })
        var primary: [String] = []
        for uuid in profile.notifyCharacteristicUUIDs + [profile.writeCharacteristicUUID]
        where !elsewhere.contains(uuid) && !primary.contains(uuid) {
            primary.append(uuid)
        }
        builder.addService(
            profile.serviceUUID, claimed: false, primary.map { (Self.normalized($0), Self.flags($0, profile), nil) })
        for (service, characteristics) in profile.additionalServices.sorted(by: { $0.key < $1.key }) {
            builder.addService(
                Self.normalized(service), claimed: false,
                characteristics.map { (Self.normalized($0), Self.flags($0, profile), nil) })
        }
        if profile.family == .chessnut {
            // The "file/OTB" channel every Chessnut has (board-protocols §1.1); nothing is
            // ever sent on it, writes are only logged.
            builder.addService(
                Self.chessnutFileService, claimed: false,
                [
                    ("1b7e8282-2877-41c3-b46e-cf057c562023", ["write"], nil),
                    ("1b7e8283-2877-41c3-b46e-cf057c562023", ["notify"], nil),
                ])
        }
        if Self.hasBatteryService(profile.family) {
            builder.addService(
                BluetoothUUID.assigned(0x180F), claimed: false, [(Self.batteryLevelUUID, ["read", "notify"], nil)])
        }
        services = builder.services
    }

    /// The service holding the characteristic at `handle`, and the characteristic.
    func characteristic(handle: UInt16) -> (Service, Characteristic)? {
        for service in services {
            if let characteristic = service.characteristics.first(where: { $0.handle == handle }) {
                return (service, characteristic)
            }
        }
        return nil
    }

    /// Every service UUID, in handle order without repeats (what `Device1.UUIDs` gains).
    var serviceUUIDs: [String] {
        var result: [String] = []
        for service in services where !result.contains(service.uuid) { result.append(service.uuid) }
        return result
    }

    private static func normalized(_ uuid: String) -> String {
        BluetoothUUID.normalized(uuid) ?? uuid.lowercased()
    }

    private static func flags(_ uuid: String, _ profile: BoardProfile) -> [String] {
        var flags: [String] = []
        let lowered = uuid.lowercased()
        if lowered == profile.writeCharacteristicUUID.lowercased() { flags += ["write-without-response", "write"] }
        if profile.notifyCharacteristicUUIDs.contains(where: { $0.lowercased() == lowered }) { flags.append("notify") }
        return flags
    }

    /// Hands out consecutive handles.
    private struct Builder {
        var services: [Service] = []
        var next: UInt16 = 1

        mutating func addService(_ uuid: String, claimed: Bool, _ characteristics: [(String, [String], [UInt8]?)]) {
            let serviceHandle = take()
            var built: [Characteristic] = []
            for (uuid, flags, value) in characteristics {
                let declaration = take()
                _ = take()  // the value handle
                var characteristic = Characteristic(
                    handle: declaration, uuid: uuid, flags: flags, descriptors: [], readValue: value)
                if characteristic.canNotify {
                    characteristic.descriptors.append(Descriptor(handle: take(), uuid: GattLayout.cccdUUID))
                }
                built.append(characteristic)
            }
            services.append(Service(handle: serviceHandle, uuid: uuid, isClaimed: claimed, characteristics: built))
        }

        mutating func take() -> UInt16 {
            defer { next += 1 }
            return next
        }
    }
}

/// Which notify characteristic carries a notification the firmware sends.
enum NotificationRouting {
    /// The characteristic UUID (lower case) for `frame` from a board of `profile`: Chessnut
    /// state frames (type 0x01) on 8262 and everything else (acks, battery, buttons) on
    /// 8273; other families use their first notify characteristic.
    static func characteristic(for frame: [UInt8], profile: BoardProfile) -> String? {
        let notify = profile.notifyCharacteristicUUIDs.map { $0.lowercased() }
        if profile.family == .chessnut, notify.count >= 2 {
            let state = ChessnutAdapter.stateCharacteristicUUID.lowercased()
            let response = ChessnutAdapter.responseCharacteristicUUID.lowercased()
            return frame.first == ChessnutWire.stateType ? state : response
        }
        return notify.first
    }
}
