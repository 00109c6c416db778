/// Loads `config.yaml` into a ``BridgeConfiguration``, reporting every problem at once.
public enum ConfigLoader {
    /// Reads and checks the file at `path`. Relative paths inside it (secret files, TLS
    /// files, `state_directory`) are resolved against the file's folder; secrets named by
    /// `*_env` keys come from `environment`.
    ///
    /// Throws one error for a missing, unreadable, non-YAML or non-mapping file, or every
    /// problem found in its contents. `checkingDevices` (`check-config`) also reports a
    /// serial device path that leads to no device now; `run` waits for it instead. Without
    /// `resolvingHallSecrets` (`run`: the bridge never uses them) the `hall:` section's
    /// secrets are not read, so their files and variables need not be there.
    public static func load(
        path: String, environment: [String: String], checkingDevices: Bool = false, resolvingHallSecrets: Bool = true
    ) throws(ConfigErrors) -> BridgeConfiguration {
        let bytes: [UInt8]
        switch ConfigFiles.read(path) {
        case .success(let read): bytes = read
        case .failure(let problem):
            throw ConfigErrors([
                ConfigError(
                    path: "", message: "cannot read the configuration file: \(problem.message)", file: path,
                    mark: problem.mark)
            ])
        }
        return try parse(
            yamlBytes: bytes, fileName: path, environment: environment,
            baseDirectory: ConfigFiles.directory(of: path), checkingDevices: checkingDevices,
            resolvingHallSecrets: resolvingHallSecrets)
    }

    /// Parses and checks YAML `yamlText` as if read from `fileName` (used in messages).
    /// Relative paths are resolved against `baseDirectory` (default: `fileName`'s folder).
    /// `resolvingHallSecrets`: see ``load(path:environment:checkingDevices:resolvingHallSecrets:)``.
    public static func parse(
        yamlText: String, fileName: String = "config.yaml", environment: [String: String] = [:],
        baseDirectory: String? = nil, resolvingHallSecrets: Bool = true
    ) throws(ConfigErrors) -> BridgeConfiguration {
        try parse(
            yamlBytes: Array(yamlText.utf8), fileName: fileName, environment: environment,
            baseDirectory: baseDirectory ?? ConfigFiles.directory(of: fileName),
            resolvingHallSecrets: resolvingHallSecrets)
    }

    /// Parses and checks the YAML bytes `yamlBytes` (any encoding libyaml reads) as if
    /// read from `fileName`; relative paths are resolved against `baseDirectory`.
    /// `checkingDevices`, `resolvingHallSecrets`: see
    /// ``load(path:environment:checkingDevices:resolvingHallSecrets:)``.
    public static func parse(
        yamlBytes: [UInt8], fileName: String, environment: [String: String] = [:], baseDirectory: String,
        checkingDevices: Bool = false, resolvingHallSecrets: Bool = true
    ) throws(ConfigErrors) -> BridgeConfiguration {
        let root: YAMLNode?
        do {
            root = try YAMLDocument.parse(yamlBytes)
        } catch {
            throw ConfigErrors([
                ConfigError(path: "", message: "not valid YAML: \(error.problem)", file: fileName, mark: error.mark)
            ])
        }
        guard let root else {
            throw ConfigErrors([
                ConfigError(
                    path: "", message: "the file is empty, expected a mapping of sections (mqtt:, boards:, …)",
                    file: fileName, mark: YAMLMark(line: 1, column: 1))
            ])
        }
        let reader = ConfigReader(file: fileName, environment: environment, baseDirectory: baseDirectory)
        reader.checksDevices = checkingDevices
        reader.resolvesHallSecrets = resolvingHallSecrets
        let config = BridgeConfiguration.read(root, reader: reader)
        guard reader.errors.isEmpty else { throw ConfigErrors(reader.errors) }
        return config
    }
}
