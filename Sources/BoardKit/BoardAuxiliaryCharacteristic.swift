public import FoundationEssentials

/// A GATT characteristic a board exposes beside its wire stream — the standard Battery
/// Service's level, for one — that the transport reads (and, where it notifies, subscribes
/// to) on the adapter's behalf. It only says what to read; the transport does the I/O and
/// hands each value to ``BoardAuxiliaryReading/feed(value:of:)``.
public struct BoardAuxiliaryCharacteristic: Hashable, Sendable {
    /// The service UUID (128-bit form, lower case).
    public var serviceUUID: String
    /// The characteristic UUID (128-bit form, lower case).
    public var characteristicUUID: String
    /// Whether the transport subscribes to its notifications (a board without them is still
    /// read).
    public var notifies: Bool
    /// The command that reads it: ``BoardTransport/send(_:)`` of this command reads the
    /// characteristic when the adapter encodes no wire bytes for it.
    public var readCommand: BoardCommand?

    /// Describes a characteristic; UUIDs are stored lower-cased.
    public init(serviceUUID: String, characteristicUUID: String, notifies: Bool, readCommand: BoardCommand?) {
        self.serviceUUID = serviceUUID.lowercased()
        self.characteristicUUID = characteristicUUID.lowercased()
        self.notifies = notifies
        self.readCommand = readCommand
    }

    /// The Battery Level characteristic (`0x2A19`, one byte, percent) of the Battery Service
    /// (`0x180F`): read on ``BoardCommand/requestBattery``, notifying.
    public static let batteryLevel = BoardAuxiliaryCharacteristic(
        serviceUUID: "0000180f-0000-1000-8000-00805f9b34fb",
        characteristicUUID: "00002a19-0000-1000-8000-00805f9b34fb", notifies: true, readCommand: .requestBattery)
}

/// A ``BoardAdapter`` that also decodes values of characteristics outside its wire stream.
///
/// A refinement, so ``BoardAdapter`` keeps the API the adapter and transport specification
/// gives it: a transport that knows this protocol reads and subscribes to
/// ``auxiliaryCharacteristics`` after the link is set up (a missing one is not an error) and
/// feeds every value it gets; one that does not simply never reads them.
public protocol BoardAuxiliaryReading: BoardAdapter {
    /// The characteristics to read besides the wire stream.
    var auxiliaryCharacteristics: [BoardAuxiliaryCharacteristic] { get }

    /// Decodes one value (a read result or a notification) of `characteristic`.
    mutating func feed(value: Data, of characteristic: BoardAuxiliaryCharacteristic) -> [BoardEvent]
}
