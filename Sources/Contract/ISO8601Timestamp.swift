public import FoundationEssentials

/// UTC timestamps for payloads, `2026-05-01T14:03:11.204Z`: computed from the date's
/// seconds since 1970 with the proleptic Gregorian calendar, so no locale, time zone or
/// formatter is involved and the text is the same everywhere.
public enum ISO8601Timestamp {
    /// `date` as `YYYY-MM-DDTHH:MM:SS.mmmZ` (rounded to the nearest millisecond). Dates outside years
    /// 0…9999 are clamped to the nearest representable instant.
    public static func string(from date: Date) -> String {
        let millisecondsPerDay: Int64 = 86_400_000
        let lowest = -62_167_219_200_000.0  // 0000-01-01T00:00:00Z
        let highest = 253_402_300_799_999.0  // 9999-12-31T23:59:59.999Z
        let raw = (date.timeIntervalSince1970 * 1000).rounded()
        let milliseconds = Int64(raw.isNaN ? 0 : min(max(raw, lowest), highest))
        var days = milliseconds / millisecondsPerDay
        var remainder = milliseconds % millisecondsPerDay
        if remainder < 0 {
            remainder += millisecondsPerDay
            days -= 1
        }
        let (year, month, day) = civilDate(daysSince1970: days)
        let hour = remainder / 3_600_000
        let minute = remainder / 60_000 % 60
        let second = remainder / 1000 % 60
        let millisecond = remainder % 1000
        // Written into the string's own storage (every state message carries one): the
        // year is clamped to 0…9999, so the text is always 24 bytes.
        return String(unsafeUninitializedCapacity: 24) { text in
            var end = 0
            func field(_ value: Int64, _ width: Int, then separator: Character) {
                var rest = value
                for offset in stride(from: width - 1, through: 0, by: -1) {
                    text[end + offset] = UInt8(48 + rest % 10)
                    rest /= 10
                }
                text[end + width] = separator.asciiValue ?? 0
                end += width + 1
            }
            field(year, 4, then: "-")
            field(month, 2, then: "-")
            field(day, 2, then: "T")
            field(hour, 2, then: ":")
            field(minute, 2, then: ":")
            field(second, 2, then: ".")
            field(millisecond, 3, then: "Z")
            return end
        }
    }

    /// A timestamp as ``string(from:)`` writes it (`2026-05-01T14:03:11.204Z`, any number of
    /// fraction digits or none) as milliseconds since 1970, or `nil` when the text is not one.
    public static func milliseconds(_ text: String?) -> Double? {
        guard let text, text.utf8.count >= 20, text.hasSuffix("Z") else { return nil }
        let bytes = Array(text.utf8)
        func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[from..<from + count] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
            let minute = number(14, 2), let second = number(17, 2), (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var fraction = 0.0
        if bytes.count > 21, bytes[19] == UInt8(ascii: "."), let digits = number(20, bytes.count - 21) {
            fraction = Double(digits) / pow10(bytes.count - 21)
        }
        // Days from civil (Howard Hinnant's algorithm).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 + second) + fraction
        return seconds * 1000
    }

    private static func pow10(_ n: Int) -> Double {
        var value = 1.0
        for _ in 0..<n { value *= 10 }
        return value
    }

    /// Year, month, day of a day count from 1970-01-01 (the "days from civil" inverse,
    /// counting in 400-year eras of 146 097 days).
    private static func civilDate(daysSince1970 days: Int64) -> (Int64, Int64, Int64) {
        let shifted = days + 719_468  // days since 0000-03-01
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153  // 0 = March
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }
}
