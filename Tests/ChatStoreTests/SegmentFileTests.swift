import ChatDomain
import ChatTestSupport
import Testing

@testable import ChatStore

@Suite(.ownThreads) struct SegmentFileTests {
    let range = SegmentRange(containing: 1, size: 10)
    let id1 = "6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3"
    let id2 = "9F2C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3"

    @Test("a segment is a JSON array, one message per line, keys sorted, LF and a trailing newline")
    func exactBytes() throws {
        let messages = [
            Message(
                sequence: 1, clientMessageID: try ClientMessageID(id1), senderID: bob, text: "On my way",
                sentAt: "2026-11-29T10:02:00.000Z"),
            Message(
                sequence: 2, clientMessageID: try ClientMessageID(id2), senderID: alice, text: "See \"you\"\nsoon ☕",
                sentAt: "2026-11-29T10:02:07.000Z"),
        ]
        let text = String(decoding: SegmentFile.encode(messages), as: UTF8.self)
        #expect(
            text == """
                [
                {"clientMessageId":"\(id1)","senderId":"bob","sentAt":"2026-11-29T10:02:00.000Z","sequence":1,"text":"On my way"},
                {"clientMessageId":"\(id2)","senderId":"alice","sentAt":"2026-11-29T10:02:07.000Z","sequence":2,"text":"See \\"you\\"\\nsoon ☕"}
                ]

                """)
        let decoded = SegmentFile.decode(Array(text.utf8), path: "s.json", range: range)
        #expect(decoded.problems.isEmpty)
        #expect(decoded.messages == messages)
        #expect(decoded.lines == [2, 3])
    }

    func record(_ sequence: String, id: String? = nil, text: String = "\"hi\"", extra: String = "") -> String {
        "{\"clientMessageId\":\"\(id ?? id1)\",\"senderId\":\"bob\",\"sentAt\":\"t\",\"sequence\":\(sequence),\"text\":\(text)\(extra)}"
    }

    @Test(
        "damaged segments are reported with the line and the reason",
        arguments: [
            ("", 1, "the file is empty; a segment is a JSON array of messages"),
            ("[\n{\"clientMessageId\":\"6F1C", 2, "the file ends before the closing ']'"),
            ("[\nRECORD1\n]\n", 2, "\"sequence\" must be a whole number, found a string"),
            ("[\nRECORD2,\nRECORD2\n]\n", 3, "sequence 2 appears twice (also on line 2)"),
            (
                "[\nRECORD12\n]\n", 2,
                "sequence 12 does not belong in this file, which holds 1–10; it belongs in 0000000011-0000000020.json"
            ),
            (
                "[\nRECORD3,\nRECORD2b\n]\n", 3,
                "sequence 2 comes after 3; records must be in ascending order of sequence"
            ),
            (
                "[\nRECORD2,\nRECORD3\n]\n", 3,
                "client message ID \(SegmentFileTests.sharedID) appears twice (also on line 2)"
            ),
            ("[\nRECORD2\nRECORD3b\n]\n", 2, "the record does not end with ','"),
            ("[\nRECORD2,\n]\n", 2, "a comma after the last record; remove it"),
            ("[\nRECORDX\n]\n", 2, "unknown field \"extra\""),
            ("[\nRECORDE\n]\n", 2, "\"text\": the message text is empty"),
            ("[\n{\"clientMessageId\":1}\n]\n", 2, "\"clientMessageId\" must be a string, found an integer"),
            ("[\n{nope}\n]\n", 2, "not valid JSON: unexpected 'n'; a key in double quotes was expected (column 2)"),
            ("{\"a\":1}", 1, "expected a JSON array of messages, found an object"),
        ])
    func damaged(_ template: String, line: Int, reason: String) {
        let text =
            template
            .replacingOccurrences(of: "RECORD12", with: record("12"))
            .replacingOccurrences(of: "RECORD1", with: record("\"1\""))
            .replacingOccurrences(of: "RECORD2b", with: record("2", id: id2))
            .replacingOccurrences(of: "RECORD2", with: record("2"))
            .replacingOccurrences(of: "RECORD3b", with: record("3", id: id2))
            .replacingOccurrences(of: "RECORD3", with: record("3"))
            .replacingOccurrences(of: "RECORDX", with: record("4", extra: ",\"extra\":true"))
            .replacingOccurrences(of: "RECORDE", with: record("4", text: "\"\""))
        let decoded = SegmentFile.decode(Array(text.utf8), path: "m/s.json", range: range)
        let error = decoded.firstError
        #expect(error?.line == line, "\(decoded.problems)")
        #expect(error?.message.contains(reason) == true, "\(String(describing: error))")
        #expect(error?.description.hasPrefix("m/s.json:\(line): ") == true)
    }

    static let sharedID = "6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3"

    @Test("a pretty-printed segment is read, with a warning that it is not canonical")
    func prettyPrinted() throws {
        let text =
            "[ {\"clientMessageId\": \"\(id1)\", \"senderId\": \"bob\", \"sentAt\": \"t\", \"sequence\": 1, \"text\": \"hi\"} ]"
        let decoded = SegmentFile.decode(Array(text.utf8), path: "s.json", range: range)
        #expect(decoded.firstError == nil)
        #expect(decoded.messages.count == 1)
        #expect(decoded.problems.map(\.severity) == [.warning])
    }
}

extension String {
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }

    @Test(
        "a sentAt over 64 bytes is refused by the fast canonical reader and the general one alike (fuzz-segment's crash-sent-at-too-long)"
    )
    func sentAtTooLong() {
        let long = "2026-11-" + String(repeating: "X", count: 60) + "29T17:58:00.000Z"
        let line =
            #"{"clientMessageId":"4CDD2055-930D-4EAF-94F4-733F3E7D1BFB","senderId":"carol","sentAt":"\#(long)","sequence":3,"text":"Around 7"}"#
        let decoded = SegmentFile.decode(Array(("[\n" + line + "\n]\n").utf8), path: "s.json", range: nil)
        #expect(decoded.messages.isEmpty)
        #expect(
            decoded.problems.map(\.description) == ["s.json:2: \"sentAt\" is 84 bytes long; a timestamp is at most 64"])
        let bytes = Array(line.utf8)
        #expect(SegmentFile.canonicalRecord(bytes, 0..<bytes.count) == nil)
        let fitting = line.replacingOccurrences(of: long, with: "2026-11-29T17:58:00.000Z")
        let fittingBytes = Array(fitting.utf8)
        #expect(SegmentFile.canonicalRecord(fittingBytes, 0..<fittingBytes.count)?.sentAt == "2026-11-29T17:58:00.000Z")
    }
}
