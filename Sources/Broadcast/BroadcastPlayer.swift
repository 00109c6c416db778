/// A player of a broadcast pairing, as the pairings file names them.
public struct BroadcastPlayer: Hashable, Sendable, Codable {
    /// The name as PGN writes it: `"Last, First"` (or any text).
    public var name: String
    /// The FIDE title (`GM`, `IM`, `WFM`, …), when the player has one.
    public var title: String?
    /// The FIDE id, when known.
    public var fideID: Int?
    /// The rating (`WhiteElo` / `BlackElo`), when known.
    public var rating: Int?
    /// The three-letter federation, when known.
    public var federation: String?

    /// A player; only the name is required.
    public init(name: String, title: String? = nil, fideID: Int? = nil, rating: Int? = nil, federation: String? = nil) {
        self.name = name
        self.title = title
        self.fideID = fideID
        self.rating = rating
        self.federation = federation
    }

    /// The name split as LiveChess Cloud indexes write it: `"Doe, John"` is last name
    /// `Doe`, first name `John`; a name without a comma is all last name.
    public var nameParts: (first: String?, last: String) {
        guard let comma = name.firstIndex(of: ",") else { return (nil, name) }
        let last = name[..<comma].trimmingSpaces
        let first = name[name.index(after: comma)...].trimmingSpaces
        return (first.isEmpty ? nil : first, last)
    }

    /// What identifies the player across files: the FIDE id, else the name without case
    /// and spacing differences.
    var identity: String {
        if let fideID { return "fide:\(fideID)" }
        return "name:" + name.lowercased().split(whereSeparator: { $0 == " " || $0 == "," }).joined(separator: " ")
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return String(text)
    }
}
