import BoardKit
import Testing

@Suite struct GlobPatternTests {
    @Test(
        arguments: [
            ("Chessnut*", "Chessnut Air", true),
            ("Chessnut*", "Chessnut", true),
            ("chessnut*", "Chessnut Air", true),
            ("CHESSNUT*", "chessnut air", true),
            ("*Air", "Chessnut Air", true),
            ("Chess?ut Air", "Chessnut Air", true),
            ("Chessnut", "Chessnut Air", false),
            ("*", "", true),
            ("a*b*c", "aXXbYYc", true),
            ("a*b*c", "aXXbYY", false),
            ("*a*b*c*", "xxaxxbxxcxx", true),
            ("*a*b*c*", "xxaxxcxxbxx", false),
            ("DGT_Pegasus_*", "DGT_Pegasus_1234", true),
            ("DGT_Pegasus_[0-9][0-9]?*", "DGT_Pegasus_12345", true),
            ("DGT_Pegasus_[0-9][0-9]?*", "DGT_Pegasus_1", false),
            ("[A-C]*", "bishop", true),
            ("[!x]*", "abc", true),
            ("[!x]*", "xyz", false),
            ("[^x]*", "Xyz", false),
        ] as [(String, String, Bool)])
    func matchesWholeNamesIgnoringCase(pattern: String, name: String, expected: Bool) throws {
        let glob = try #require(GlobPattern(pattern))
        #expect(glob.matches(name) == expected)
    }

    @Test(arguments: ["", "[abc", "DGT_[0-9", "[z-a]"])
    func rejectsInvalidPatterns(_ pattern: String) {
        #expect(GlobPattern(pattern) == nil)
    }

    @Test func keepsThePatternAsWritten() throws {
        let glob = try #require(GlobPattern("Chessnut*"))
        #expect(glob.pattern == "Chessnut*")
        #expect("\(glob)" == "Chessnut*")
        #expect("\(BoardMatch.namePattern(glob))" == #"name_pattern "Chessnut*""#)
    }

    @Test func boardMatchComparesAddressesAndNamesIgnoringCase() throws {
        let byAddress = BoardMatch.address("aa:bb:cc:dd:ee:01")
        #expect(byAddress.matches(address: "AA:BB:CC:DD:EE:01"))
        #expect(!byAddress.matches(address: "AA:BB:CC:DD:EE:02"))
        #expect(!byAddress.matches(advertisedName: "Chessnut Air"))
        #expect("\(byAddress)" == "address AA:BB:CC:DD:EE:01")
        let byName = BoardMatch.namePattern(try #require(GlobPattern("chessnut*")))
        #expect(byName.matches(advertisedName: "Chessnut Air"))
        #expect(!byName.matches(advertisedName: nil))
        #expect(!byName.matches(address: "AA:BB:CC:DD:EE:01"))
        #expect(!BoardMatch.any.matches(address: "AA:BB:CC:DD:EE:01"))
        #expect(!BoardMatch.any.matches(advertisedName: "Chessnut Air"))
    }
}
