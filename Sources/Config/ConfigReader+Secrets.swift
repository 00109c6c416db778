extension ConfigReader {
    /// Reads a secret given as `key`, `key_file` or `key_env` (at most one), resolving
    /// files and environment variables now. Messages name the key, the file path or the
    /// variable, never the value.
    func secret(in mapping: ConfigMapping, key: String) -> Secret? {
        let variants = [key, "\(key)_file", "\(key)_env"]
        let given = variants.filter { mapping.has($0) }
        if given.count > 1 {
            for extra in given.dropFirst() {
                fail(
                    mapping.path(extra), "give only one of \(variants.joined(separator: ", "))",
                    at: mapping.keyNode(extra)?.mark)
            }
        }
        guard let chosen = given.first, let node = mapping.value(chosen) else { return nil }
        let path = mapping.path(chosen)
        // `string` never echoes a scalar's text, so a secret written with a wrong type stays hidden.
        guard let text = string(node, path: path) else { return nil }
        if !resolvesHallSecrets, path == "hall" || path.hasPrefix("hall.") { return nil }
        switch chosen {
        case key:
            guard !text.isEmpty else {
                fail(path, "must not be empty", at: node.mark)
                return nil
            }
            return Secret(text, source: .inline)
        case "\(key)_file":
            let file = ConfigFiles.resolve(text, against: baseDirectory)
            switch ConfigFiles.read(file) {
            case .failure(let problem):
                fail(path, "cannot read secret file \(Self.quote(file)): \(problem.message)", at: node.mark)
                return nil
            case .success(let bytes):
                var value = String(decoding: bytes, as: UTF8.self)
                while value.hasSuffix("\n") || value.hasSuffix("\r") { value.removeLast() }
                guard !value.isEmpty else {
                    fail(path, "secret file \(Self.quote(file)) is empty", at: node.mark)
                    return nil
                }
                return Secret(value, source: .file(file))
            }
        default:
            guard let value = environment[text] else {
                fail(path, "environment variable \(Self.quote(text)) is not set", at: node.mark)
                return nil
            }
            guard !value.isEmpty else {
                fail(path, "environment variable \(Self.quote(text)) is empty", at: node.mark)
                return nil
            }
            return Secret(value, source: .environment(text))
        }
    }

    /// The mark of whichever of `key`, `key_file`, `key_env` is present (for follow-up errors).
    func secretMark(in mapping: ConfigMapping, key: String) -> YAMLMark? {
        [key, "\(key)_file", "\(key)_env"].lazy.compactMap { mapping.value($0)?.mark }.first
    }

    /// The path of whichever of `key`, `key_file`, `key_env` is present.
    func secretPath(in mapping: ConfigMapping, key: String) -> String {
        let present = [key, "\(key)_file", "\(key)_env"].first { mapping.has($0) } ?? key
        return mapping.path(present)
    }
}
