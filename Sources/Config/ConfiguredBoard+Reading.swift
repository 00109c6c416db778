import BoardKit
import Kernel
import SystemCalls

extension ConfiguredBoard {
    static let keys = [
        "id", "name", "address", "name_pattern", "family", "adapter", "orientation", "time_control", "tags",
        "allow_raw_commands", "developer_key", "developer_key_file", "developer_key_env", "reconnect", "model",
        "area", "serial",
    ]

    /// PGN tag names that are not simply the snake_case key in PascalCase.
    static let tagNames = ["eco": "ECO", "white_fide_id": "WhiteFideId", "black_fide_id": "BlackFideId"]

    /// Tags the bridge writes itself, by configuration key.
    static let reservedTags = [
        "result": "the game's result", "fen": "the start position", "set_up": "the start position",
        "setup": "the start position", "time_control": "boards[].time_control", "timecontrol": "boards[].time_control",
        "ply_count": "the game", "plycount": "the game",
    ]

    /// Reads the `boards` list, then checks ids and addresses for duplicates.
    static func readAll(
        _ items: [(path: String, node: YAMLNode)], bluetooth: BluetoothConfiguration,
        reconnect: BoardReconnectPolicy, reader: ConfigReader
    ) -> [ConfiguredBoard] {
        var boards: [ConfiguredBoard] = []
        var firstID: [String: YAMLMark] = [:]
        var firstAddress: [String: YAMLMark] = [:]
        var firstSerial: [String: YAMLMark] = [:]
        for item in items {
            guard let section = reader.mapping(item.node, path: item.path, keys: keys) else { continue }
            let board = read(section, bluetooth: bluetooth, reconnect: reconnect, reader: reader)
            // Ids are compared even when another part of the board is wrong.
            if let idNode = section.value("id"), case .scalar(let id, _) = idNode.content,
                TopicRules.boardIDProblem(in: id) == nil
            {
                if let first = firstID[id] {
                    reader.fail(
                        section.path("id"),
                        "duplicate board id \(ConfigReader.quote(id)) (first at line \(first.line))",
                        at: idNode.mark)
                } else {
                    firstID[id] = idNode.mark
                }
            }
            if let board, case .address(let address) = board.match, let node = section.value("address") {
                if let first = firstAddress[address] {
                    reader.fail(
                        section.path("address"), "address \(address) is also used at line \(first.line)",
                        at: node.mark)
                } else {
                    firstAddress[address] = node.mark
                }
            }
            if let serial = board?.serial, let node = section.value("serial") {
                if let first = firstSerial[serial] {
                    reader.fail(
                        section.path("serial"), "serial \(serial) is also used at line \(first.line)", at: node.mark)
                } else {
                    firstSerial[serial] = node.mark
                }
            }
            if let board { boards.append(board) }
        }
        return boards
    }

    /// One board; `nil` when a required part is missing or invalid (the problem is recorded).
    static func read(
        _ section: ConfigMapping, bluetooth: BluetoothConfiguration, reconnect: BoardReconnectPolicy,
        reader: ConfigReader
    ) -> ConfiguredBoard? {
        var valid = true
        var id: String?
        if let node = section.value("id") {
            if let text = reader.string(node, path: section.path("id")) {
                if let problem = TopicRules.boardIDProblem(in: text) {
                    reader.fail(section.path("id"), problem, at: node.mark)
                } else {
                    id = text
                }
            }
        } else {
            section.missing("id")
        }
        let name = section.nonEmptyString("name")
        let model = section.nonEmptyString("model")
        let area = section.nonEmptyString("area")
        var family: BoardFamily?
        if let node = section.value("family") {
            family = reader.choice(node, path: section.path("family"), noun: "family")
        } else {
            section.missing("family")
        }
        let serial = readSerial(section, family: family, reader: reader)
        if section.has("serial"), serial == nil { valid = false }
        let match: BoardMatch?
        if section.has("serial"), !section.has("address"), !section.has("name_pattern") {
            match = serial == nil ? nil : .any
        } else {
            match = readMatch(section, family: family, reader: reader)
            if let family, family.connectsOverSerialLine, family != .dgt, match != nil {
                valid = false
                let key = section.has("address") ? "address" : "name_pattern"
                reader.fail(
                    section.path(key), "a \(family.rawValue) board is on a USB serial line: give serial: instead",
                    at: (section.value(key) ?? section.node).mark)
            } else if family == .dgt, case .namePattern = match, let node = section.value("name_pattern") {
                valid = false
                reader.fail(
                    section.path("name_pattern"),
                    "a Bluetooth DGT e-Board is paired and found by its address (or give serial: for USB)",
                    at: node.mark)
            }
        }
        var adapter: String?
        if let node = section.value("adapter"), let text = reader.string(node, path: section.path("adapter")) {
            if section.has("serial") {
                valid = false
                reader.fail(
                    section.path("adapter"), "a board on a serial line uses no Bluetooth adapter", at: node.mark)
            } else if bluetooth.adapters.contains(text) {
                adapter = text
            } else {
                valid = false
                reader.fail(
                    section.path("adapter"),
                    "adapter \(ConfigReader.quote(text)) is not listed in bluetooth.adapters "
                        + "(\(bluetooth.adapters.joined(separator: ", ")))", at: node.mark)
            }
        }
        let orientation = section.choice(
            "orientation", noun: "orientation", spellings: OrientationSetting.spellings, default: .auto)
        var timeControl: TimeControl?
        if let node = section.value("time_control"), let text = reader.string(node, path: section.path("time_control"))
        {
            do {
                timeControl = try TimeControl(pgn: text)
            } catch {
                reader.fail(
                    section.path("time_control"),
                    "invalid time control \(ConfigReader.quote(text)): \(error.reason)", at: node.mark)
            }
        }
        let tags = readTags(section, reader: reader)
        let allowRaw = section.bool("allow_raw_commands", default: false)
        var developerKey = reader.secret(in: section, key: "developer_key")
        if let key = developerKey {
            let path = reader.secretPath(in: section, key: "developer_key")
            let mark = reader.secretMark(in: section, key: "developer_key")
            if family != nil, family != .dgtPegasus {
                reader.fail(path, "only pegasus boards take a developer key", at: mark)
            }
            if let bytes = keyBytes(key.reveal()) {
                developerKey = Secret(HexBytes.string(bytes), source: key.source)
            } else {
                reader.fail(path, "expected 6 bytes as 12 hex digits (the value is not shown)", at: mark)
                developerKey = nil
            }
        }
        var boardReconnect = reconnect
        if let override = section.mapping("reconnect", keys: BridgeConfiguration.reconnectKeys) {
            boardReconnect = BridgeConfiguration.readReconnect(override, base: reconnect, reader: reader)
        }
        guard valid, let id, let match, let family else { return nil }
        return ConfiguredBoard(
            id: id, name: name, match: match, family: family, adapter: adapter, orientation: orientation,
            timeControl: timeControl, tags: tags, allowRawCommands: allowRaw, developerKey: developerKey,
            reconnect: boardReconnect, model: model, area: area, serial: serial)
    }

    /// `serial`: an absolute device path, for a board of a serial family only, never with `address` or
    /// `name_pattern`. With ``ConfigReader/checksDevices`` (check-config) the device must
    /// exist; `run` waits for a missing one (an unplugged board).
    private static func readSerial(_ section: ConfigMapping, family: BoardFamily?, reader: ConfigReader) -> String? {
        guard let node = section.value("serial"), let text = reader.string(node, path: section.path("serial")) else {
            return nil
        }
        let path = section.path("serial")
        for other in ["address", "name_pattern"] where section.has(other) {
            reader.fail(path, "give either serial or \(other), not both", at: node.mark)
            return nil
        }
        if let family, !family.connectsOverSerialLine {
            let serialFamilies = BoardFamily.allCases.filter(\.connectsOverSerialLine).map(\.rawValue)
            reader.fail(
                path,
                "only \(serialFamilies.joined(separator: ", ")) boards connect over a serial line "
                    + "(this board is \(family.rawValue))", at: node.mark)
            return nil
        }
        guard text.hasPrefix("/"), text.count > 1, !text.unicodeScalars.contains("\0"), text.utf8.count <= 4096 else {
            reader.fail(
                path,
                "invalid device path \(ConfigReader.quote(text)), expected an absolute path like "
                    + "/dev/serial/by-id/usb-… or /dev/ttyUSB0", at: node.mark)
            return nil
        }
        if reader.checksDevices, !FileSystem.exists(text) {
            reader.fail(path, "no device at \(text) (is the board plugged in?)", at: node.mark)
        }
        return text
    }

    private static func readMatch(_ section: ConfigMapping, family: BoardFamily?, reader: ConfigReader) -> BoardMatch? {
        let addressNode = section.value("address")
        let patternNode = section.value("name_pattern")
        if addressNode != nil, let patternNode {
            reader.fail(
                section.path("name_pattern"), "give either address or name_pattern, not both", at: patternNode.mark)
            return nil
        }
        if let node = addressNode, let text = reader.string(node, path: section.path("address")) {
            guard let address = BluetoothAddress.normalized(text, separators: [":"]) else {
                reader.fail(
                    section.path("address"),
                    "invalid Bluetooth address \(ConfigReader.quote(text)), expected six hex pairs like AA:BB:CC:DD:EE:FF",
                    at: node.mark)
                return nil
            }
            return .address(address)
        }
        if let node = patternNode, let text = reader.string(node, path: section.path("name_pattern")) {
            guard let pattern = GlobPattern(text) else {
                reader.fail(
                    section.path("name_pattern"),
                    "invalid name pattern \(ConfigReader.quote(text)) (empty, or an unclosed \"[\")", at: node.mark)
                return nil
            }
            return .namePattern(pattern)
        }
        if addressNode == nil, patternNode == nil, family == .dgt {
            reader.fail(
                section.path, "missing required key \"serial\" (or \"address\" for a Bluetooth e-Board)",
                at: section.node.mark)
        } else if addressNode == nil, patternNode == nil, let family, family.connectsOverSerialLine {
            reader.fail(section.path, "missing required key \"serial\"", at: section.node.mark)
        } else if addressNode == nil, patternNode == nil {
            reader.fail(section.path, "missing required key \"address\" (or \"name_pattern\")", at: section.node.mark)
        }
        return nil
    }

    private static func readTags(_ section: ConfigMapping, reader: ConfigReader) -> [String: String] {
        guard let node = section.value("tags"), let pairs = reader.pairs(node, path: section.path("tags")) else {
            return [:]
        }
        var tags: [String: String] = [:]
        for (key, pair) in pairs {
            let path = ConfigReader.child(section.path("tags"), key)
            guard let first = key.unicodeScalars.first, ("a"..."z").contains(first) || ("A"..."Z").contains(first),
                key.unicodeScalars.allSatisfy({
                    ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
                })
            else {
                reader.fail(
                    path,
                    "invalid tag name \(ConfigReader.quote(key)): letters, digits and \"_\", starting with a letter",
                    at: pair.key.mark)
                continue
            }
            if let owner = reservedTags[key.lowercased()] {
                reader.fail(path, "this tag is set by the bridge from \(owner)", at: pair.key.mark)
                continue
            }
            guard !pair.value.isNull, let value = reader.string(pair.value, path: path) else { continue }
            if value.contains(where: { $0.isNewline }) || value.unicodeScalars.contains("\0") || value.count > 255 {
                reader.fail(path, "a tag value is one line of at most 255 characters", at: pair.value.mark)
                continue
            }
            let name = pgnTagName(key)
            if tags[name] != nil {
                reader.fail(path, "tag \(name) is given twice", at: pair.key.mark)
                continue
            }
            tags[name] = value
        }
        return tags
    }

    /// `white_elo` → `WhiteElo`, `eco` → `ECO`; PascalCase names are kept.
    static func pgnTagName(_ key: String) -> String {
        if let known = tagNames[key] { return known }
        return key.split(separator: "_").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}
