import BoardKit
import JSON

/// Helpers shared by the value parsers.
extension CommandParser {
    /// Refuses the first key of `object` not in `allowed`, suggesting the nearest.
    func checkFields(_ object: JSONObject, allowed: [String], command: String) throws(CommandError) {
        for key in object.keys where !allowed.contains(key) {
            throw .unknownField(
                command: command, field: key, suggestion: NameSuggestion.nearest(to: key, in: allowed))
        }
    }

    /// Squares from JSON strings, duplicates dropped, order kept.
    func squares(_ elements: [JSONValue], field: String) throws(CommandError) -> [Square] {
        var result: [Square] = []
        for element in elements {
            guard case .string(let name) = element else {
                throw .badValueType(
                    field: field, expected: "square names such as \"e4\"", found: element.kindDescription)
            }
            guard let square = Square(name), name.count == 2 else { throw .badSquare(name) }
            if !result.contains(square) { result.append(square) }
        }
        return result
    }

    /// Squares from text such as `"e2 e4"` or `"e2,e4"`.
    func squareList(_ text: String, field: String) throws(CommandError) -> [Square] {
        let names = text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }).map {
            JSONValue.string(String($0))
        }
        guard !names.isEmpty else {
            throw .badValue(field: field, value: "\"\(text)\"", reason: "no squares (send \"clear\" to turn LEDs off)")
        }
        return try squares(names, field: field)
    }

    /// A tag value: a string (or a whole number for `round` and `board`), at most
    /// 255 characters, without control characters. `nil` and `null` give `nil`.
    func tagText(_ value: JSONValue?, field: String, numberAllowed: Bool = false) throws(CommandError) -> String? {
        guard let value, !value.isNull else { return nil }
        let text: String
        switch value {
        case .string(let string): text = string
        case .number where numberAllowed && value.intValue != nil: text = value.encodedString()
        default:
            throw .badValueType(
                field: field, expected: numberAllowed ? "a string or a whole number" : "a string",
                found: value.kindDescription)
        }
        guard text.count <= Self.maximumTagLength else {
            throw .badValue(
                field: field, value: "\"\(text.prefix(40))…\"",
                reason: "longer than \(Self.maximumTagLength) characters")
        }
        guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw .badValue(field: field, value: value.encodedString(), reason: "contains a control character")
        }
        return text
    }

    /// Tags that have their own field (or are the bridge's to set) are refused in `tags`.
    static let reservedTagNames: Set<String> = [
        "Event", "Site", "Date", "Round", "Board", "White", "Black", "Result", "TimeControl", "FEN", "SetUp",
    ]

    /// The `tags` object of `new_game`: PGN tag names to string values, in order.
    func extraTags(_ value: JSONValue) throws(CommandError) -> [GameCommand.Tag] {
        guard case .object(let object) = value else {
            throw .badValueType(
                field: "new_game.tags", expected: "an object of tag names to strings", found: value.kindDescription)
        }
        var tags: [GameCommand.Tag] = []
        for member in object {
            let field = "new_game.tags.\(member.key)"
            guard !member.key.isEmpty, member.key.count <= 64,
                member.key.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") })
            else {
                throw .badValue(field: "new_game.tags", value: "\"\(member.key)\"", reason: "not a PGN tag name")
            }
            guard !Self.reservedTagNames.contains(member.key) else {
                throw .badValue(
                    field: "new_game.tags", value: "\"\(member.key)\"",
                    reason: "set by its own field or by the bridge, not in tags")
            }
            if let text = try tagText(member.value, field: field, numberAllowed: true) {
                tags.append(GameCommand.Tag(name: member.key, value: text))
            }
        }
        return tags
    }

    /// Clock seconds: a number from 0 to `maximumClockSeconds`; `nil` stays `nil`.
    func seconds(_ value: JSONValue?, field: String) throws(CommandError) -> Double? {
        guard let value, !value.isNull else { return nil }
        guard case .number(let seconds) = value else {
            throw .badValueType(field: field, expected: "a number of seconds", found: value.kindDescription)
        }
        guard seconds >= 0, seconds <= Self.maximumClockSeconds else {
            throw .badValue(
                field: field, value: JSONValue.numberText(seconds),
                reason: "expected 0 to \(JSONValue.numberText(Self.maximumClockSeconds)) seconds")
        }
        return seconds
    }
}
