/// "Did you mean …?" for unknown keys, by edit distance.
enum KeySuggestion {
    /// `unknown key "base_topik", did you mean "base_topic"?`, or the list of valid keys
    /// when none is close.
    static func unknownKeyMessage(_ key: String, validKeys: [String]) -> String {
        if let nearest = nearest(to: key, in: validKeys) {
            return "unknown key \(ConfigReader.quote(key)), did you mean \(ConfigReader.quote(nearest))?"
        }
        return "unknown key \(ConfigReader.quote(key)), expected one of \(validKeys.joined(separator: ", "))"
    }

    /// The valid key closest to `key`, if it is close enough to be a likely typo:
    /// at most a third of the key's length in edits (at least 1, at most 3).
    static func nearest(to key: String, in validKeys: [String]) -> String? {
        let limit = min(3, max(1, key.count / 3))
        var best: (key: String, distance: Int)?
        for candidate in validKeys {
            let distance = editDistance(key.lowercased(), candidate)
            if distance <= limit, distance < (best?.distance ?? Int.max) {
                best = (candidate, distance)
            }
        }
        return best?.key
    }

    /// Optimal-string-alignment distance: insertions, deletions, substitutions and
    /// transpositions of neighbours each cost 1.
    static func editDistance(_ lhs: String, _ rhs: String) -> Int {
        let a = Array(lhs)
        let b = Array(rhs)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, previous2[j - 2] + 1)
                }
                current[j] = value
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
