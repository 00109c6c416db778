extension BroadcastRound {
    /// The columns a pairings CSV file may have (the header line names them, in any order,
    /// case-insensitive); `board`, `white` and `black` are required.
    public static let csvColumns = [
        "board", "board_id", "game_id",
        "white", "white_title", "white_fide_id", "white_rating", "white_fed",
        "black", "black_title", "black_fide_id", "black_rating", "black_fed",
    ]

    /// Reads a pairings CSV file: a header line naming the columns (``csvColumns``), then
    /// one game a line. Errors name the line and column.
    ///
    /// ```
    /// board,board_id,white,white_title,white_fide_id,white_rating,black,black_title,black_fide_id,black_rating
    /// 1,board-01,"Doe, John",GM,1503014,2830,"Roe, Richard",IM,2020009,2505
    /// ```
    public init(
        csv text: String, round: String, event: String? = nil, site: String? = nil, date: String? = nil,
        timeControl: String? = nil
    ) throws(PairingsError) {
        let records = try CSVRecords.parse(text)
        guard let header = records.first else {
            throw PairingsError(line: 1, column: 1, message: "the file is empty: a header line is needed")
        }
        var columns: [String: Int] = [:]
        for (index, field) in header.enumerated() {
            let name = field.text.lowercased()
            guard Self.csvColumns.contains(name) else {
                throw PairingsError(
                    line: field.line, column: field.column,
                    message: "unknown column '\(field.text)' (known: \(Self.csvColumns.joined(separator: ", ")))")
            }
            guard columns[name] == nil else {
                throw PairingsError(line: field.line, column: field.column, message: "column '\(name)' appears twice")
            }
            columns[name] = index
        }
        for required in ["board", "white", "black"] where columns[required] == nil {
            throw PairingsError(line: header[0].line, column: 0, message: "the header has no '\(required)' column")
        }
        var pairings: [BroadcastPairing] = []
        for record in records.dropFirst() {
            let row = CSVRow(fields: record, columns: columns)
            guard record.count <= header.count else {
                let extra = record[header.count]
                throw PairingsError(
                    line: extra.line, column: extra.column,
                    message: "\(record.count) fields where the header names \(header.count)")
            }
            func player(_ color: String) throws(PairingsError) -> BroadcastPlayer {
                BroadcastPlayer(
                    name: try row.required(color), title: row.optional("\(color)_title"),
                    fideID: try row.number("\(color)_fide_id"), rating: try row.number("\(color)_rating"),
                    federation: row.optional("\(color)_fed"))
            }
            guard let board = try row.number("board"), board > 0 else {
                let field = row.field("board")
                throw PairingsError(
                    line: field?.line ?? record[0].line, column: field?.column ?? 0,
                    message: "board must be a whole number from 1")
            }
            pairings.append(
                BroadcastPairing(
                    boardNumber: board, boardID: row.optional("board_id"), white: try player("white"),
                    black: try player("black"), round: round, gameID: row.optional("game_id")))
        }
        try self.init(
            round: round, event: event, site: site, date: date, timeControl: timeControl, pairings: pairings)
    }
}

/// One line of a pairings CSV file, read by column name.
private struct CSVRow {
    var fields: [CSVRecords.Field]
    var columns: [String: Int]

    func field(_ name: String) -> CSVRecords.Field? {
        guard let index = columns[name], index < fields.count else { return nil }
        return fields[index]
    }

    func optional(_ name: String) -> String? {
        guard let text = field(name)?.text, !text.isEmpty else { return nil }
        return text
    }

    func required(_ name: String) throws(PairingsError) -> String {
        guard let text = optional(name) else {
            throw PairingsError(
                line: field(name)?.line ?? fields.first?.line ?? 0, column: field(name)?.column ?? 0,
                message: "'\(name)' is empty")
        }
        return text
    }

    func number(_ name: String) throws(PairingsError) -> Int? {
        guard let text = optional(name) else { return nil }
        guard let value = Int(text), value >= 0 else {
            throw PairingsError(
                line: field(name)?.line ?? 0, column: field(name)?.column ?? 0,
                message: "'\(name)' must be a whole number, not '\(text)'")
        }
        return value
    }
}
