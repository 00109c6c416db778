public import BoardKit

/// The `8D` (BWTIME) message: the times of a clock attached to the board, or the clock's
/// ack of a `2B` clock message.
///
/// Payload layout (7 bytes): right display hours (low nibble), minutes, seconds (binary
/// coded decimal); left display the same; then a status byte: bit 0 the clock runs,
/// bit 1 the right lever is up, bit 2 the clock's battery is low, bit 5 no clock is
/// attached. An hours nibble of `A` marks a clock ack instead of times.
///
/// This layout is not in board-protocols.md §4.1 (which names the message and its size
/// only); it restates DGT's published protocol description and needs checking against a
/// real DGT 3000 (docs/dgt.md).
public enum DGTClockTimes: Hashable, Sendable {
    /// The clock's times.
    case times(BoardClockReading)
    /// The board says no clock is attached.
    case noClock
    /// The clock acknowledged a clock message.
    case ack

    static let running: UInt8 = 0x01
    static let rightLeverUp: UInt8 = 0x02
    static let batteryLow: UInt8 = 0x04
    static let noClockAttached: UInt8 = 0x20
    static let ackNibble: UInt8 = 0x0A

    /// Decodes a 7-byte payload, or `nil` when a time is not binary coded decimal.
    public init?(payload: some Collection<UInt8>) {
        let bytes = Array(payload)
        guard bytes.count == 7 else { return nil }
        if bytes[0] & 0x0F == Self.ackNibble || bytes[3] & 0x0F == Self.ackNibble {
            self = .ack
            return
        }
        let status = bytes[6]
        if status & Self.noClockAttached != 0 {
            self = .noClock
            return
        }
        guard let right = Self.seconds(bytes[0], bytes[1], bytes[2]),
            let left = Self.seconds(bytes[3], bytes[4], bytes[5])
        else { return nil }
        let leverUp: ClockSide = status & Self.rightLeverUp != 0 ? .right : .left
        self = .times(
            BoardClockReading(
                left: left, right: right, running: status & Self.running != 0 ? leverUp : nil, leverUp: leverUp,
                batteryLow: status & Self.batteryLow != 0))
    }

    /// The 7-byte payload for `reading` (what a board with a clock sends).
    public static func payload(_ reading: BoardClockReading) -> [UInt8] {
        var status: UInt8 = reading.leverUp == .right ? rightLeverUp : 0
        if reading.running != nil { status |= running }
        if reading.batteryLow { status |= batteryLow }
        return encode(reading.right) + encode(reading.left) + [status]
    }

    /// The payload of a board without a clock.
    public static let noClockPayload: [UInt8] = [0, 0, 0, 0, 0, 0, noClockAttached]

    private static func seconds(_ hours: UInt8, _ minutes: UInt8, _ seconds: UInt8) -> Int? {
        guard let minutes = decimal(minutes), let seconds = decimal(seconds), minutes < 60, seconds < 60 else {
            return nil
        }
        let hourValue = Int(hours & 0x0F)
        guard hourValue <= 9 else { return nil }
        return hourValue * 3600 + minutes * 60 + seconds
    }

    private static func decimal(_ byte: UInt8) -> Int? {
        let high = Int(byte >> 4)
        let low = Int(byte & 0x0F)
        guard high <= 9, low <= 9 else { return nil }
        return high * 10 + low
    }

    private static func encode(_ total: Int) -> [UInt8] {
        let clamped = max(0, min(total, 9 * 3600 + 59 * 60 + 59))
        let minutes = clamped / 60 % 60
        let seconds = clamped % 60
        return [
            UInt8(clamped / 3600), UInt8((minutes / 10) << 4 | minutes % 10), UInt8((seconds / 10) << 4 | seconds % 10),
        ]
    }
}
