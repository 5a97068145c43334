import ChatTestSupport
import Testing

@testable import ChatStore

@Suite(.ownThreads) struct SegmentRangeTests {
    @Test(
        "a sequence belongs to the segment whose range holds it",
        arguments: [
            (1, 100, 1, 100), (100, 100, 1, 100), (101, 100, 101, 200), (401, 100, 401, 500),
            (500, 100, 401, 500), (1_000_000, 100, 999_901, 1_000_000), (7, 1, 7, 7), (11, 10, 11, 20),
        ])
    func keying(sequence: Int, size: Int, first: Int, last: Int) {
        let range = SegmentRange(containing: sequence, size: size)
        #expect(range.first == first && range.last == last)
        #expect(range.contains(sequence))
        #expect(range.isAligned(size: size))
    }

    @Test("file names are zero-padded to 10 digits so ls sorts them")
    func fileNames() {
        #expect(SegmentRange(containing: 417, size: 100).fileName == "0000000401-0000000500.json")
        #expect(SegmentRange(fileName: "0000000401-0000000500.json") == SegmentRange(containing: 450, size: 100))
    }

    @Test(
        "other names are not segments",
        arguments: [
            "401-500.json", "0000000500-0000000401.json", "0000000000-0000000099.json", "0000000401-0000000500.txt",
            ".0000000401-0000000500.json.123.456.tmp", "000000040a-0000000500.json", "",
        ])
    func notSegments(_ name: String) {
        #expect(SegmentRange(fileName: name) == nil)
    }
}
