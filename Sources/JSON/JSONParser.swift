extension JSONValue {
    /// Parses strict JSON (RFC 8259) from UTF-8 bytes.
    ///
    /// Unlike `JSONDecoder`, which forgets member order, silently keeps one of two
    /// repeated keys and reports no position, this keeps document order, rejects
    /// duplicate keys and names the line and column of every problem. Containers nested
    /// deeper than `maximumDepth` are rejected before recursing further, so a hostile
    /// payload cannot exhaust the stack.
    public init(
        parsing bytes: some Collection<UInt8>, maximumDepth: Int = JSONValue.defaultMaximumDepth
    )
        throws(JSONError)
    {
        var parser = JSONParser(bytes: Array(bytes), maximumDepth: maximumDepth)
        self = try parser.parseDocument()
    }

    /// Parses strict JSON from text (see `init(parsing:maximumDepth:)` for bytes).
    public init(parsing text: String, maximumDepth: Int = JSONValue.defaultMaximumDepth) throws(JSONError) {
        try self.init(parsing: Array(text.utf8), maximumDepth: maximumDepth)
    }
}

/// A recursive-descent parser over a byte array; one instance per document.
private struct JSONParser {
    let bytes: [UInt8]
    let maximumDepth: Int
    var index = 0

    init(bytes: [UInt8], maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    /// Up to this many members, a new key is checked against the members themselves.
    static let linearKeys = 16

    mutating func parseDocument() throws(JSONError) -> JSONValue {
        skipWhitespace()
        guard index < bytes.count else { throw error(.empty) }
        let value = try parseValue(depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw error(.trailingCharacters(describe(at: index))) }
        return value
    }

    private mutating func parseValue(depth: Int) throws(JSONError) -> JSONValue {
        guard let byte = peek() else { throw error(.unexpectedEnd(expected: "a value")) }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try parseLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try parseLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try parseLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error(.unexpectedCharacter(describe(at: index), expected: "a value"))
        }
    }

    private mutating func parseObject(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= maximumDepth else { throw error(.tooDeep(limit: maximumDepth)) }
        index += 1
        var members: [JSONObject.Member] = []
        // Keys seen, for objects past `linearKeys` members (a hostile object of many keys
        // stays linear); smaller ones, nearly all, are checked against their members.
        var seen: Set<String>?
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            return .object(JSONObject())
        }
        while true {
            skipWhitespace()
            guard let byte = peek() else { throw error(.unexpectedEnd(expected: "a key string")) }
            guard byte == UInt8(ascii: "\"") else {
                throw error(.unexpectedCharacter(describe(at: index), expected: "a key string"))
            }
            let keyOffset = index
            let key = try parseString()
            if members.count < Self.linearKeys {
                guard !members.contains(where: { $0.key == key }) else {
                    throw error(.duplicateKey(key), at: keyOffset)
                }
            } else {
                if seen == nil { seen = Set(members.map(\.key)) }
                guard seen?.insert(key).inserted == true else { throw error(.duplicateKey(key), at: keyOffset) }
            }
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "':'")
            skipWhitespace()
            members.append(JSONObject.Member(key: key, value: try parseValue(depth: depth)))
            skipWhitespace()
            guard let next = peek() else { throw error(.unexpectedEnd(expected: "',' or '}'")) }
            index += 1
            if next == UInt8(ascii: "}") { return .object(JSONObject(uncheckedMembers: members)) }
            guard next == UInt8(ascii: ",") else {
                throw error(.unexpectedCharacter(describe(at: index - 1), expected: "',' or '}'"), at: index - 1)
            }
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= maximumDepth else { throw error(.tooDeep(limit: maximumDepth)) }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            return .array([])
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            guard let next = peek() else { throw error(.unexpectedEnd(expected: "',' or ']'")) }
            index += 1
            if next == UInt8(ascii: "]") { return .array(elements) }
            guard next == UInt8(ascii: ",") else {
                throw error(.unexpectedCharacter(describe(at: index - 1), expected: "',' or ']'"), at: index - 1)
            }
        }
    }

    /// A string: the runs between escapes are found and copied whole (a string without
    /// escapes is validated straight from the input, without a buffer).
    private mutating func parseString() throws(JSONError) -> String {
        let start = index
        index += 1
        var buffer: [UInt8] = []
        var runStart = index
        while true {
            index = endOfRun(from: index)
            guard let byte = peek() else { throw error(.unexpectedEnd(expected: "'\"' closing the string")) }
            switch byte {
            case UInt8(ascii: "\""):
                let run = runStart..<index
                index += 1
                // An escape always leaves a byte in the buffer: empty, the string had none.
                let text = bytes.withUnsafeBufferPointer { all -> String? in
                    let tail = UnsafeBufferPointer(rebasing: all[run])
                    if buffer.isEmpty { return String(validating: tail, as: UTF8.self) }
                    buffer.append(contentsOf: tail)
                    return String(validating: buffer, as: UTF8.self)
                }
                guard let text else { throw error(.invalidUTF8, at: start) }
                return text
            case UInt8(ascii: "\\"):
                buffer.append(contentsOf: bytes[runStart..<index])
                try parseEscape(into: &buffer)
                runStart = index
            default:
                throw error(.controlCharacterInString)
            }
        }
    }

    /// The index of the first byte at or after `start` that ends a string's run of plain
    /// bytes (a quote, a backslash, a control character), or the end of the input.
    private func endOfRun(from start: Int) -> Int {
        bytes.withUnsafeBufferPointer { all in
            var index = start
            while index < all.count {
                let byte = all[index]
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
                index += 1
            }
            return index
        }
    }

    private mutating func parseEscape(into buffer: inout [UInt8]) throws(JSONError) {
        let start = index
        index += 1
        guard let letter = peek() else { throw error(.unexpectedEnd(expected: "an escape character")) }
        index += 1
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(letter)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            let scalar = try parseUnicodeEscape(start: start)
            buffer.append(contentsOf: Array(String(Character(scalar)).utf8))
        default:
            throw error(.invalidEscape("\\" + describeBare(letter)), at: start)
        }
    }

    /// Reads the four hex digits after `\u` (and a low surrogate after a high one).
    private mutating func parseUnicodeEscape(start: Int) throws(JSONError) -> Unicode.Scalar {
        let high = try hexQuad(start: start)
        if (0xDC00...0xDFFF).contains(high) { throw error(.invalidUnicodeEscape(text(from: start)), at: start) }
        guard (0xD800...0xDBFF).contains(high) else {
            guard let scalar = Unicode.Scalar(high) else {
                throw error(.invalidUnicodeEscape(text(from: start)), at: start)
            }
            return scalar
        }
        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
        else { throw error(.invalidUnicodeEscape(text(from: start)), at: start) }
        index += 2
        let low = try hexQuad(start: start)
        guard (0xDC00...0xDFFF).contains(low),
            let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        else { throw error(.invalidUnicodeEscape(text(from: start)), at: start) }
        return scalar
    }

    private mutating func hexQuad(start: Int) throws(JSONError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = peek(), let digit = Self.hexValue(byte) else {
                throw error(.invalidUnicodeEscape(text(from: start)), at: start)
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    private mutating func parseNumber() throws(JSONError) -> JSONValue {
        let start = index
        if peek() == UInt8(ascii: "-") { index += 1 }
        if peek() == UInt8(ascii: "0") {
            index += 1
            if let next = peek(), Self.isDigit(next) { throw error(.invalidNumber(lexeme(from: start)), at: start) }
        } else {
            guard skipDigits() else { throw error(.invalidNumber(lexeme(from: start)), at: start) }
        }
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard skipDigits() else { throw error(.invalidNumber(lexeme(from: start)), at: start) }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard skipDigits() else { throw error(.invalidNumber(lexeme(from: start)), at: start) }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw error(.numberOutOfRange(text), at: start) }
        return .number(value)
    }

    /// Skips a run of digits; `false` when there was none.
    private mutating func skipDigits() -> Bool {
        let start = index
        while let byte = peek(), Self.isDigit(byte) { index += 1 }
        return index > start
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private mutating func parseLiteral(_ word: String) throws(JSONError) {
        for expected in word.utf8 {
            guard let byte = peek() else { throw error(.unexpectedEnd(expected: "'\(word)'")) }
            guard byte == expected else {
                throw error(.unexpectedCharacter(describe(at: index), expected: "'\(word)'"))
            }
            index += 1
        }
    }

    private mutating func expect(_ byte: UInt8, _ name: String) throws(JSONError) {
        guard let found = peek() else { throw error(.unexpectedEnd(expected: name)) }
        guard found == byte else { throw error(.unexpectedCharacter(describe(at: index), expected: name)) }
        index += 1
    }

    private func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    // MARK: Error reporting

    /// The number-like text starting at `start` (for messages), at most 32 bytes.
    private func lexeme(from start: Int) -> String {
        var end = start
        while end < bytes.count, end - start < 32,
            Self.isDigit(bytes[end]) || Array("+-.eE".utf8).contains(bytes[end])
        {
            end += 1
        }
        return String(decoding: bytes[start..<max(end, min(start + 1, bytes.count))], as: UTF8.self)
    }

    /// The escape text from `start` to the current index (for messages).
    private func text(from start: Int) -> String {
        String(decoding: bytes[start..<min(max(index, start + 1), bytes.count)], as: UTF8.self)
    }

    /// The character at `offset`, quoted, for messages: `'}'`, `U+00E9`, `byte 0xFF`.
    private func describe(at offset: Int) -> String {
        guard offset < bytes.count else { return "end of payload" }
        let byte = bytes[offset]
        if byte < 0x80 { return byte >= 0x20 && byte < 0x7F ? "'\(describeBare(byte))'" : Self.codePoint(UInt32(byte)) }
        var end = offset + 1
        while end < bytes.count, end - offset < 4, bytes[end] & 0xC0 == 0x80 { end += 1 }
        if let text = String(validating: bytes[offset..<end], as: UTF8.self), let scalar = text.unicodeScalars.first {
            return Self.codePoint(scalar.value)
        }
        return "byte 0x" + String(byte, radix: 16, uppercase: true)
    }

    private func describeBare(_ byte: UInt8) -> String {
        String(decoding: [byte], as: UTF8.self)
    }

    private static func codePoint(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    private func error(_ problem: JSONError.Problem) -> JSONError {
        error(problem, at: index)
    }

    private func error(_ problem: JSONError.Problem, at offset: Int) -> JSONError {
        let (line, column) = JSONTextPosition.of(offset, in: bytes)
        return JSONError(problem: problem, offset: offset, line: line, column: column)
    }
}
