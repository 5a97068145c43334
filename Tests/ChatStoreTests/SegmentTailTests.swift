import ChatDomain
import ChatTestSupport
import Testing

@testable import ChatStore

/// `SegmentFile.decodeTail` (what opening a conversation reads) against `SegmentFile.decode` of
/// the whole file: the same newest records, or a refusal that sends the reader to `decode`.
@Suite(.ownThreads) struct SegmentTailTests {
    let range = SegmentRange(containing: 1, size: 100)

    func segment(_ count: Int, first: Int = 1) -> [UInt8] {
        SegmentFile.encode((first..<(first + count)).map { message($0) })
    }

    func whole(_ bytes: [UInt8]) -> SegmentFile.Decoded {
        SegmentFile.decode(bytes, path: "s.json", range: range, reportLayout: false)
    }

    @Test(
        "the tail holds the newest records of the whole file, and says whether older ones are left",
        arguments: [0, 1, 30, 49, 50, 51, 99, 100], [1, 20, 50, 100, 150])
    func sameAsWhole(records: Int, count: Int) throws {
        let bytes = segment(records)
        let tail = try #require(SegmentFile.decodeTail(bytes, range: range, count: count))
        let decoded = whole(bytes)
        #expect(decoded.problems.isEmpty)
        #expect(tail.messages == Array(decoded.messages.suffix(count)))
        #expect(tail.hasEarlier == (records > count))
    }

    @Test("records at or above the bound are checked and left out", arguments: [1, 10, 41, 60, 101])
    func below(bound: Int) throws {
        let bytes = segment(60)
        let tail = try #require(SegmentFile.decodeTail(bytes, range: range, count: 15, below: bound))
        let expected = whole(bytes).messages.filter { $0.sequence < bound }.suffix(15)
        #expect(tail.messages == Array(expected))
        #expect(tail.hasEarlier == (expected.first.map { $0.sequence > 1 } ?? false))
    }

    @Test(
        "reading stops at the first record at or under the floor, which is not kept",
        arguments: [0, 1, 10, 41, 59, 60, 101])
    func above(floor: Int) throws {
        let bytes = segment(60)
        let tail = try #require(SegmentFile.decodeTail(bytes, range: range, count: .max, above: floor))
        let expected = whole(bytes).messages.filter { $0.sequence > floor }
        #expect(tail.messages == expected)
        #expect(tail.hasEarlier == (floor >= 1), "the record at or under the floor is left in the file")
    }

    @Test("the floor and the bound together: records between them, newest first up to the count")
    func between() throws {
        let bytes = segment(60)
        let tail = try #require(SegmentFile.decodeTail(bytes, range: range, count: 5, below: 40, above: 30))
        #expect(tail.messages.map(\.sequence) == [35, 36, 37, 38, 39])
        let all = try #require(SegmentFile.decodeTail(bytes, range: range, count: 50, below: 40, above: 30))
        #expect(all.messages.map(\.sequence) == Array(31...39))
    }

    @Test("records with escapes, quotes and non-ASCII text read as the whole-file decoder reads them")
    func escapes() throws {
        let texts = [
            "See \"you\"\nsoon ☕", "tab\there", "back\\slash", "é", "日本語のテキスト、少し長めのメッセージ", "\u{1F600} emoji at the end",
        ]
        let messages = texts.enumerated().map { message($0.offset + 1, text: $0.element) }
        let bytes = SegmentFile.encode(messages)
        let tail = try #require(SegmentFile.decodeTail(bytes, range: range, count: 50))
        #expect(tail.messages == messages)
        #expect(tail.messages == whole(bytes).messages)
    }

    static let id = "6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3"

    static func line(_ sequence: String, id: String = id, text: String = "\"hi\"", extra: String = "") -> String {
        "{\"clientMessageId\":\"\(id)\",\"senderId\":\"bob\",\"sentAt\":\"t\",\"sequence\":\(sequence),\"text\":\(text)\(extra)}"
    }

    /// Files whose end is damaged or not plainly canonical: the tail refuses, and the whole-file
    /// decoder (which the reader then runs) has the error or reads another layout.
    @Test(
        "a damaged or non-canonical end is refused, for the whole-file decoder to report",
        arguments: [
            "[\n" + line("1") + ",\ngarbage\n]\n", // last line damaged
            "[\n" + line("1") + ",\n" + line("2") + "\n", // cut short: no "]"
            "[\n" + line("1") + ",\n" + line("2") + ",\n]\n", // comma after the last record
            "[\n" + line("1") + "\n" + line("2") + "\n]\n", // comma missing
            "[\n" + line("1") + ",\n\n" + line("2") + "\n]\n", // blank line
            // sequence twice
            "[\n" + line("2") + ",\n" + line("2", id: "9F2C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3") + "\n]\n",
            "[\n" + line("3") + ",\n" + line("2") + "\n]\n", // out of order
            "[\n" + line("101") + "\n]\n", // outside the file's range
            "[\n" + line("1", extra: ",\"x\":1") + "\n]\n", // unknown key
            "[\n" + line("1", id: "not-an-id") + "\n]\n", // bad ID
            "[\n" + line("1", text: "\"\"") + "\n]\n", // empty text
            "[\n" + line("01") + "\n]\n", // leading zero
            // conflict markers
            "[\n<<<<<<< ours\n" + line("1") + "\n=======\n" + line("1", text: "\"ho\"") + "\n>>>>>>> theirs\n]\n",
        ])
    func refused(text: String) {
        let bytes = Array(text.utf8)
        #expect(SegmentFile.decodeTail(bytes, range: range, count: 50) == nil)
        #expect(whole(bytes).firstError != nil)
    }

    @Test(
        "another layout is refused, for the whole-file decoder to read",
        arguments: [
            "[" + line("1") + "]\n", // one line
            "[\n" + line("1") + "\n]", // no final newline
            "[\n" + line("1") + "\n]\n\n", // a blank line after "]"
            "[\r\n" + line("1") + "\r\n]\r\n", // CRLF
        ])
    func otherLayouts(text: String) {
        let bytes = Array(text.utf8)
        #expect(SegmentFile.decodeTail(bytes, range: range, count: 50) == nil)
    }

    @Test(
        "a record line the parser reads (another key order, indented) reads the same from the tail",
        arguments: [
            "[\n{\"text\":\"hi\",\"sequence\":1,\"sentAt\":\"t\",\"senderId\":\"bob\",\"clientMessageId\":\"\(id)\"}\n]\n",
            "[\n  " + line("1") + "\n]\n",
        ])
    func parsedLines(text: String) throws {
        let bytes = Array(text.utf8)
        let tail = try #require(SegmentFile.decodeTail(bytes, range: range, count: 50))
        #expect(tail.messages == whole(bytes).messages)
        #expect(tail.messages.map(\.sequence) == [1])
    }

    @Test("damage the page does not reach is not looked at; check still finds it")
    func unreachedDamage() throws {
        var lines = String(decoding: segment(100), as: UTF8.self).split(
            separator: "\n", omittingEmptySubsequences: false
        ).map(String.init)
        lines[10] = "garbage,"
        let bytes = Array(lines.joined(separator: "\n").utf8)
        let tail = try #require(SegmentFile.decodeTail(bytes, range: range, count: 50))
        #expect(tail.messages.map(\.sequence) == Array(51...100))
        #expect(whole(bytes).firstError?.line == 11)
    }
}
