/// Finds the known name nearest to a misspelt one, for "did you mean" hints.
enum NameSuggestion {
    /// The candidate with the smallest edit distance to `name`, when that distance is at
    /// most a third of the longer name (and at most 3); ties go to the earlier candidate.
    static func nearest(to name: String, in candidates: [String]) -> String? {
        let lowered = Array(name.lowercased())
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(lowered, Array(candidate))
            if distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        guard let best else { return nil }
        let allowed = min(3, max(1, max(lowered.count, best.name.count) / 3))
        return best.distance <= allowed ? best.name : nil
    }

    /// Levenshtein distance with adjacent transpositions counted as one edit.
    static func editDistance(_ lhs: [Character], _ rhs: [Character]) -> Int {
        if lhs.isEmpty { return rhs.count }
        if rhs.isEmpty { return lhs.count }
        let width = rhs.count + 1
        var table = [Int](repeating: 0, count: (lhs.count + 1) * width)
        for column in 0...rhs.count { table[column] = column }
        for row in 1...lhs.count {
            table[row * width] = row
            for column in 1...rhs.count {
                let cost = lhs[row - 1] == rhs[column - 1] ? 0 : 1
                var value = min(
                    table[(row - 1) * width + column] + 1,
                    table[row * width + column - 1] + 1,
                    table[(row - 1) * width + column - 1] + cost
                )
                if row > 1, column > 1, lhs[row - 1] == rhs[column - 2], lhs[row - 2] == rhs[column - 1] {
                    value = min(value, table[(row - 2) * width + column - 2] + 1)
                }
                table[row * width + column] = value
            }
        }
        return table[lhs.count * width + rhs.count]
    }
}
