/// A strict reader of the Prometheus text exposition format 0.0.4, for the tests: it refuses
/// what a lenient scraper would let pass (a sample before its `# TYPE`, a family split in two,
/// a repeated series, an escape the format does not have, a missing final line feed).
struct PrometheusTextParser {
    struct Sample: Equatable {
        var labels: [String: String]
        var value: Double
    }

    struct Family: Equatable {
        var name: String
        var type: String
        var help: String?
        var samples: [Sample] = []
    }

    struct Failure: Error, CustomStringConvertible {
        var line: Int
        var reason: String
        var description: String { "line \(line): \(reason)" }
    }

    /// The families in order of appearance.
    static func parse(_ text: String) throws(Failure) -> [Family] {
        guard text.isEmpty || text.hasSuffix("\n") else { throw Failure(line: 0, reason: "no final line feed") }
        var families: [Family] = []
        var helps: [String: String] = [:]
        var closed: Set<String> = []
        var series: Set<String> = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().enumerated() {
            let number = index + 1
            func fail(_ reason: String) -> Failure { Failure(line: number, reason: reason) }
            if line.hasPrefix("#") {
                let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
                guard parts.count >= 3, parts[0] == "#", parts[1] == "HELP" || parts[1] == "TYPE" else { continue }
                let name = String(parts[2])
                guard isMetricName(name) else { throw fail("bad metric name \(name)") }
                let rest = parts.count > 3 ? String(parts[3]) : ""
                if parts[1] == "HELP" {
                    guard helps[name] == nil else { throw fail("second HELP for \(name)") }
                    helps[name] = try unescape(rest, quotes: false).get(or: fail("bad escape in HELP"))
                    if let last = families.indices.last, families[last].name == name {
                        families[last].help = helps[name]
                    }
                } else {
                    guard ["counter", "gauge", "untyped", "histogram", "summary"].contains(rest) else {
                        throw fail("bad type \(rest)")
                    }
                    guard !families.contains(where: { $0.name == name }) else { throw fail("second TYPE for \(name)") }
                    if let last = families.last { closed.insert(last.name) }
                    families.append(Family(name: name, type: rest, help: helps[name]))
                }
                continue
            }
            guard !line.isEmpty else { continue }
            let (name, labels, value) = try sample(String(line)).get(or: fail("bad sample: \(line)"))
            guard let last = families.indices.last, families[last].name == name else {
                throw fail(closed.contains(name) ? "\(name) split in two" : "sample of \(name) before its TYPE")
            }
            let key = name + labels.sorted { $0.key < $1.key }.map { "\u{0}\($0.key)=\($0.value)" }.joined()
            guard series.insert(key).inserted else { throw fail("repeated series \(line)") }
            families[last].samples.append(Sample(labels: labels, value: value))
        }
        return families
    }

    static func isMetricName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCII,
            first.properties.isAlphabetic || first == "_" || first == ":"
        else { return false }
        return name.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == ":")
        }
    }

    static func isLabelName(_ name: String) -> Bool {
        isMetricName(name) && !name.contains(":")
    }

    /// `name{a="x",b="y"} value [timestamp]`.
    static func sample(_ line: String) -> (String, [String: String], Double)? {
        var rest = Substring(line)
        let name = String(rest.prefix { $0 != "{" && $0 != " " })
        guard isMetricName(name) else { return nil }
        rest = rest.dropFirst(name.count)
        var labels: [String: String] = [:]
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                let label = String(rest.prefix { $0 != "=" })
                guard isLabelName(label), labels[label] == nil else { return nil }
                rest = rest.dropFirst(label.count)
                guard rest.hasPrefix("=\"") else { return nil }
                rest = rest.dropFirst(2)
                var raw = ""
                var escaped = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if escaped {
                        raw.append("\\")
                        raw.append(character)
                        escaped = false
                    } else if character == "\\" {
                        escaped = true
                    } else if character == "\"" {
                        break
                    } else {
                        raw.append(character)
                    }
                }
                guard let value = unescape(raw, quotes: true) else { return nil }
                labels[label] = value
                if rest.first == "," { rest = rest.dropFirst() } else if rest.first != "}" { return nil }
            }
            rest = rest.dropFirst()
        }
        guard rest.first == " " else { return nil }
        let fields = rest.dropFirst().split(separator: " ", omittingEmptySubsequences: false)
        guard (1...2).contains(fields.count), let value = number(String(fields[0])) else { return nil }
        if fields.count == 2, Int64(fields[1]) == nil { return nil }
        return (name, labels, value)
    }

    static func number(_ text: String) -> Double? {
        switch text {
        case "NaN": return .nan
        case "+Inf", "Inf": return .infinity
        case "-Inf": return -.infinity
        default:
            guard !text.isEmpty, text.allSatisfy({ "0123456789.eE+-".contains($0) }) else { return nil }
            return Double(text)
        }
    }

    /// `\\`, `\n` and (in label values) `\"` are the only escapes.
    static func unescape(_ text: String, quotes: Bool) -> String? {
        var out = ""
        var iterator = text.makeIterator()
        while let character = iterator.next() {
            guard character == "\\" else {
                if quotes, character == "\n" { return nil }
                out.append(character)
                continue
            }
            switch iterator.next() {
            case "\\": out.append("\\")
            case "n": out.append("\n")
            case "\"" where quotes: out.append("\"")
            default: return nil
            }
        }
        return out
    }
}

extension Optional {
    fileprivate func get<E: Error>(or error: @autoclosure () -> E) throws(E) -> Wrapped {
        guard let self else { throw error() }
        return self
    }
}
