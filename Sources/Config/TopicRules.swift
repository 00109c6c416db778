/// The rules for names that become MQTT topics or topic levels (base topic, node name,
/// board ids, Home Assistant prefixes).
public enum TopicRules {
    /// What is wrong with `text` as a topic (or, with `singleLevel`, as one topic level),
    /// or `nil` when it is fine. Refused: empty, NUL, the wildcards `+` and `#`, a leading
    /// `$` (reserved for broker topics), a leading or trailing `/`, empty levels (`//`),
    /// more than 65535 bytes, and any `/` in a single level.
    public static func problem(in text: String, singleLevel: Bool) -> String? {
        if text.isEmpty { return "must not be empty" }
        if text.unicodeScalars.contains("\0") { return "invalid topic character NUL" }
        for wildcard in ["+", "#"] where text.contains(wildcard) {
            return "invalid topic character \"\(wildcard)\" (an MQTT wildcard)"
        }
        if text.hasPrefix("$") { return "must not start with \"$\" (reserved for broker topics)" }
        if text.utf8.count > 65_535 { return "is longer than 65535 bytes" }
        if singleLevel {
            if text.contains("/") { return "invalid topic character \"/\" (must be a single topic level)" }
            return nil
        }
        if text.hasPrefix("/") || text.hasSuffix("/") { return "must not start or end with \"/\"" }
        if text.contains("//") { return "empty topic level (\"//\")" }
        return nil
    }

    /// What is wrong with `text` as a board id, or `nil`: the single-level topic rules,
    /// then only ASCII letters, digits, `-` and `_` (ids also name Home Assistant
    /// objects), and not `bridge` (the bridge's own topics live under `<base>/bridge`).
    public static func boardIDProblem(in text: String) -> String? {
        if let problem = problem(in: text, singleLevel: true) { return problem }
        if text == "bridge" { return "\"bridge\" is reserved for the bridge's own topics" }
        let allowed = text.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-"
                || $0 == "_"
        }
        if !allowed { return "may contain only letters, digits, \"-\" and \"_\"" }
        return nil
    }
}
