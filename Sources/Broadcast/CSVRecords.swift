/// Reads comma-separated values as RFC 4180 writes them: fields in double quotes may hold
/// commas, line breaks and doubled quotes (`""`); lines end in LF or CRLF; a byte-order
/// mark at the start is skipped. Each field keeps the line and column it starts at, so
/// errors point into the file.
struct CSVRecords {
    /// A field and where it starts.
    struct Field: Equatable {
        var text: String
        var line: Int
        var column: Int
    }

    /// The records of `text`, empty lines left out.
    static func parse(_ text: String) throws(PairingsError) -> [[Field]] {
        var records: [[Field]] = []
        var record: [Field] = []
        var field = ""
        var quoted = false
        var inQuotes = false
        var line = 1
        var column = 1
        var start = (line: 1, column: 1)
        var characters = Array(text)
        if characters.first == "\u{FEFF}" { characters.removeFirst() }
        var index = 0
        func endField() {
            record.append(
                Field(text: quoted ? field : field.trimmingCharacters(), line: start.line, column: start.column))
            field = ""
            quoted = false
        }
        func endRecord() {
            endField()
            if !(record.count == 1 && record[0].text.isEmpty && !quoted) { records.append(record) }
            record = []
        }
        while index < characters.count {
            let character = characters[index]
            index += 1
            if inQuotes {
                if character == "\"" {
                    if index < characters.count, characters[index] == "\"" {
                        field.append("\"")
                        index += 1
                        column += 1
                    } else {
                        inQuotes = false
                    }
                } else {
                    field.append(character)
                }
                if character == "\n" || character == "\r\n" {
                    line += 1
                    column = 0
                }
                column += 1
                continue
            }
            switch character {
            case ",":
                endField()
                column += 1
                start = (line, column)
            case "\n", "\r\n", "\r":
                endRecord()
                line += 1
                column = 1
                start = (line, column)
            case "\"" where field.allSatisfy({ $0 == " " || $0 == "\t" }):
                field = ""
                quoted = true
                inQuotes = true
                column += 1
            case "\"":
                throw PairingsError(line: line, column: column, message: "a quote inside an unquoted field")
            default:
                if quoted {
                    guard character == " " || character == "\t" else {
                        throw PairingsError(line: line, column: column, message: "text after a closing quote")
                    }
                } else {
                    field.append(character)
                }
                column += 1
            }
        }
        if inQuotes {
            throw PairingsError(line: start.line, column: start.column, message: "a quoted field never closes")
        }
        if !field.isEmpty || quoted || !record.isEmpty { endRecord() }
        return records
    }
}

extension String {
    /// The text without leading and trailing spaces and tabs.
    func trimmingCharacters() -> String { self[...].trimmingSpaces }
}
