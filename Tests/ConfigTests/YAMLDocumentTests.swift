import Config
import Testing

@Suite struct YAMLDocumentTests {
    @Test func buildsATreeWithMarks() throws {
        let root = try #require(try YAMLDocument.parse("a: 1\nb:\n  - x\n  - 'y'\n"))
        guard case .mapping(let pairs) = root.content else {
            Issue.record("root is not a mapping")
            return
        }
        #expect(pairs.count == 2)
        #expect(pairs[0].key == YAMLNode(.scalar("a", .plain), mark: YAMLMark(line: 1, column: 1)))
        #expect(pairs[0].value == YAMLNode(.scalar("1", .plain), mark: YAMLMark(line: 1, column: 4)))
        #expect(
            pairs[1].value
                == YAMLNode(
                    .sequence([
                        YAMLNode(.scalar("x", .plain), mark: YAMLMark(line: 3, column: 5)),
                        YAMLNode(.scalar("y", .quoted), mark: YAMLMark(line: 4, column: 5)),
                    ]), mark: YAMLMark(line: 3, column: 3)))
    }

    @Test func nullScalars() throws {
        let root = try #require(try YAMLDocument.parse("a:\nb: ~\nc: null\nd: ''\n"))
        guard case .mapping(let pairs) = root.content else {
            Issue.record("root is not a mapping")
            return
        }
        #expect(pairs.map(\.value.isNull) == [true, true, true, false])
    }

    @Test func aliasesAreExpanded() throws {
        let root = try #require(try YAMLDocument.parse("base: &t {event: Open}\nother: *t\n"))
        guard case .mapping(let pairs) = root.content else {
            Issue.record("root is not a mapping")
            return
        }
        #expect(pairs[0].value.content == pairs[1].value.content)
    }

    @Test func recursiveAliasIsRefused() {
        #expect(throws: YAMLError.self) { try YAMLDocument.parse("a: &x [1, *x]\n") }
    }

    @Test func aliasBombIsRefused() {
        var yaml = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...8 {
            let refs = Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ")
            yaml += "a\(level): &a\(level) [\(refs)]\n"
        }
        do {
            _ = try YAMLDocument.parse(yaml)
            Issue.record("an alias bomb was expanded")
        } catch {
            #expect(error.problem.contains("nodes after expanding aliases"))
        }
    }

    @Test func deepNestingIsRefused() {
        let yaml = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(throws: YAMLError.self) { try YAMLDocument.parse(yaml) }
    }

    @Test func emptyStreamHasNoDocument() throws {
        #expect(try YAMLDocument.parse("") == nil)
        #expect(try YAMLDocument.parse("# just a comment\n") == nil)
    }

    @Test func syntaxErrorCarriesLibyamlsMark() {
        do {
            _ = try YAMLDocument.parse("a: b: c\n")
            Issue.record("invalid YAML parsed")
        } catch {
            #expect(error.problem == "mapping values are not allowed in this context")
            #expect(error.mark == YAMLMark(line: 1, column: 5))
        }
    }
}
