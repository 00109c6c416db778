import BoardKit
import Testing

@Suite struct HexBytesTests {
    @Test func readsPairsInEitherCaseAndSkipsTheSeparators() {
        #expect(HexBytes.parse("0a1B ff:00") == [0x0a, 0x1b, 0xff, 0x00])
        #expect(HexBytes.parse("be-f5", ignoring: "-") == [0xbe, 0xf5])
        #expect(HexBytes.parse("") == [])
    }

    @Test(arguments: ["abc", "+f", "0g", "be-f5", "０１"])
    func refusesWhatIsNotHexPairs(text: String) {
        #expect(HexBytes.parse(text) == nil)
    }

    @Test func writesLowerCaseTwoDigitsEach() {
        #expect(HexBytes.string([0x0a, 0xff, 0x00]) == "0aff00")
        #expect(HexBytes.string([0x21, 0x01], separator: " ") == "21 01")
    }
}
