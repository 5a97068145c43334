import ChatDomain
import ChatTestSupport
import Foundation
import Testing

@testable import ChatStore

/// A Matrix store's message records: the bytes the writer puts on disk, the readers (canonical
/// and parsed) agreeing on them, and every refusal naming its file, line and key, while a wire v1
/// store refuses the Matrix fields.
@Suite struct MatrixSegmentTests {
    static let me = try! UserID("@alice:example.org")
    static let other = try! UserID("@bob:example.org")
    static let room = try! ConversationID("room")
    static let ids = [
        try! ClientMessageID("6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3"),
        try! ClientMessageID("9F2C7E1A-3B4D-4E5F-8A6B-7C8D9E0F1A2B"),
    ]

    static func matrixMessages() throws -> [Message] {
        let redactedEvent = try EventID("$e3")
        return [
            Message(
                sequence: 1, clientMessageID: ids[0], senderID: me, text: "hi", sentAt: "2026-11-29T10:00:00.000Z",
                eventID: try EventID("$e1")),
            Message(
                sequence: 2, clientMessageID: ids[1], senderID: other, text: "waves",
                sentAt: "2026-11-29T10:00:01.000Z",
                eventID: try EventID("$e2:example.org"), kind: .emote, replaces: try EventID("$e1")),
            Message(
                sequence: 3, clientMessageID: .derived(fromEventID: redactedEvent), senderID: other, text: "",
                sentAt: "2026-11-29T10:00:02.000Z", eventID: redactedEvent, redacted: true),
        ]
    }

    static func matrixStore(in directory: TemporaryDirectory) throws -> Store {
        try Store.create(at: directory.path + "/store", manifest: Manifest(userID: me, segmentSize: 10))
    }

    @Test("the writer puts exactly the specified lines on disk, appending and rewriting alike")
    func writerBytes() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.matrixStore(in: directory)
        let writer = try StoreWriter(store: store)
        let messages = try Self.matrixMessages()
        _ = try writer.save(Array(messages[..<2]), in: Self.room)
        _ = try writer.save([messages[2]], in: Self.room)
        let derived = ClientMessageID.derived(fromEventID: try EventID("$e3"))
        let expected = """
            [
            {"clientMessageId":"6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3","eventId":"$e1","senderId":"@alice:example.org","sentAt":"2026-11-29T10:00:00.000Z","sequence":1,"text":"hi"},
            {"clientMessageId":"9F2C7E1A-3B4D-4E5F-8A6B-7C8D9E0F1A2B","eventId":"$e2:example.org","kind":"emote","replaces":"$e1","senderId":"@bob:example.org","sentAt":"2026-11-29T10:00:01.000Z","sequence":2,"text":"waves"},
            {"clientMessageId":"\(derived)","eventId":"$e3","redacted":true,"senderId":"@bob:example.org","sentAt":"2026-11-29T10:00:02.000Z","sequence":3,"text":""}
            ]

            """
        let path = store.root + "/conversations/room/messages/0000000001-0000000010.json"
        #expect(String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self) == expected)

        // A second writer (nothing remembered) reads the file whole and writes the same bytes.
        let freshDirectory = try TemporaryDirectory()
        let fresh = try Self.matrixStore(in: freshDirectory)
        _ = try StoreWriter(store: fresh).save([messages[2]], in: Self.room)
        _ = try StoreWriter(store: fresh).save(Array(messages[..<2]), in: Self.room)
        let again = fresh.root + "/conversations/room/messages/0000000001-0000000010.json"
        #expect(String(decoding: try Data(contentsOf: URL(fileURLWithPath: again)), as: UTF8.self) == expected)

        // Readers give the records back: the page's tail reader and the whole-file decoder.
        let conversation = store.conversation(Self.room)
        #expect(try conversation.newestMessages(limit: 10).messages == messages)
        #expect(StoreChecker.check(root: store.root).errors.isEmpty)
    }

    @Test("a wire v1 store's records are the bytes they always were")
    func wireBytes() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let record = Message(
            sequence: 1, clientMessageID: Self.ids[0], senderID: bob, text: "hi", sentAt: "2026-11-29T10:00:00.000Z")
        _ = try StoreWriter(store: store).save([record], in: c1)
        let path = store.root + "/conversations/c1/messages/0000000001-0000000010.json"
        #expect(
            String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
                == "[\n{\"clientMessageId\":\"6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3\",\"senderId\":\"bob\",\"sentAt\":\"2026-11-29T10:00:00.000Z\",\"sequence\":1,\"text\":\"hi\"}\n]\n"
        )
    }

    @Test("the canonical reader and the parser agree on Matrix records; an escape takes the parser")
    func fastAndSlowAgree() throws {
        var messages = try Self.matrixMessages()
        messages[0].text = "a \"quoted\" word\n"
        messages[1].text = String(repeating: "é", count: 5_000)
        let bytes = SegmentFile.encode(messages)
        let decoded = SegmentFile.decode(bytes, path: "s.json", range: nil, protocol: .matrix)
        #expect(decoded.problems.isEmpty, "\(decoded.problems)")
        #expect(decoded.messages == messages)
        let lines = bytes.split(separator: 0x0A).map { Array($0) }
        let canonical = Array(lines[2].dropLast())
        #expect(SegmentFile.canonicalRecord(canonical, 0..<canonical.count, protocol: .matrix) == messages[1])
        let escaped = Array(lines[1].dropLast())
        #expect(SegmentFile.canonicalRecord(escaped, 0..<escaped.count, protocol: .matrix) == nil)
        #expect(SegmentFile.decodeTail(bytes, range: nil, count: 10, protocol: .matrix)?.messages == messages)
        // The same bytes are no wire v1 segment.
        #expect(SegmentFile.decodeTail(bytes, range: nil, count: 10) == nil)
        #expect(SegmentFile.canonicalRecord(canonical, 0..<canonical.count) == nil)
    }

    static let path = "conversations/room/messages/0000000001-0000000010.json"
    static let id = "6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3"
    static let tail = #""senderId":"@bob:example.org","sentAt":"2026-11-29T10:00:00.000Z","sequence":1"#
    static let derivedE1 = ClientMessageID.derived(fromEventID: try! EventID("$e1"))

    @Test(
        "each refusal names the file, the line and the key",
        arguments: [
            (
                StoreProtocol.wire,
                #"{"clientMessageId":"\#(id)","eventId":"$e1","senderId":"bob","sentAt":"t","sequence":1,"text":"hi"}"#,
                #":2: "eventId" is a field of a Matrix store's records, and this store speaks wire v1"#
            ),
            (
                .wire,
                #"{"clientMessageId":"\#(id)","kind":"emote","senderId":"bob","sentAt":"t","sequence":1,"text":"hi"}"#,
                #":2: "kind" is a field of a Matrix store's records"#
            ),
            (
                .wire,
                #"{"clientMessageId":"\#(id)","redacted":true,"senderId":"bob","sentAt":"t","sequence":1,"text":"hi"}"#,
                #":2: "redacted" is a field of a Matrix store's records"#
            ),
            (
                .wire,
                #"{"clientMessageId":"\#(id)","replaces":"$e0","senderId":"bob","sentAt":"t","sequence":1,"text":"hi"}"#,
                #":2: "replaces" is a field of a Matrix store's records"#
            ),
            (
                .wire, #"{"clientMessageId":"\#(id)","senderId":"bob","sentAt":"t","sequence":1,"text":"hi","x":1}"#,
                #":2: unknown field "x"; remove it (allowed: clientMessageId, senderId, sentAt, sequence, text)"#
            ),
            (
                .matrix, #"{"clientMessageId":"\#(id)",\#(tail),"text":"hi"}"#,
                #":2: the field "eventId" is missing"#
            ),
            (
                .matrix, #"{"clientMessageId":"\#(id)","eventId":"e1",\#(tail),"text":"hi"}"#,
                #":2: "eventId": invalid event ID "e1": does not start with "$""#
            ),
            (
                .matrix, #"{"clientMessageId":"\#(id)","eventId":"$e1","replaces":"!r",\#(tail),"text":"hi"}"#,
                #":2: "replaces": invalid event ID "!r""#
            ),
            (
                .matrix, #"{"clientMessageId":"\#(id)","eventId":"$e1","kind":"",\#(tail),"text":"hi"}"#,
                #":2: "kind": invalid message kind "": it is empty"#
            ),
            (
                .matrix, #"{"clientMessageId":"\#(derivedE1)","eventId":"$e1","redacted":false,\#(tail),"text":""}"#,
                #":2: "redacted" is written only as true, found false; remove it, or write true"#
            ),
            (
                .matrix, #"{"clientMessageId":"\#(derivedE1)","eventId":"$e1","redacted":true,\#(tail),"text":"hi"}"#,
                #":2: "text" must be empty in a redacted record"#
            ),
            (
                .matrix,
                #"{"clientMessageId":"\#(derivedE1)","eventId":"$e1","kind":"emote","redacted":true,\#(tail),"text":""}"#,
                #":2: "kind" ("emote") is not written in a redacted record; remove it"#
            ),
            (
                .matrix,
                #"{"clientMessageId":"\#(derivedE1)","eventId":"$e1","redacted":true,"replaces":"$e0",\#(tail),"text":""}"#,
                #":2: "replaces" is not written in a redacted record; remove it"#
            ),
            (
                .matrix, #"{"clientMessageId":"\#(id)","eventId":"$e1","redacted":true,\#(tail),"text":""}"#,
                #":2: "clientMessageId" of a redacted record is the one derived from its event ID, \#(derivedE1), found \#(id)"#
            ),
            (
                .matrix, #"{"clientMessageId":"\#(id)","eventId":"$e1","kind":"unreadable",\#(tail),"text":"?"}"#,
                #":2: "text" must be empty when "kind" is "unreadable""#
            ),
            (
                .matrix, #"{"clientMessageId":"\#(id)","eventId":"$e1","replaces":"$e1",\#(tail),"text":"hi"}"#,
                #":2: "replaces" names the record's own event $e1"#
            ),
            (
                .matrix, #"{"clientMessageId":"\#(id)","eventId":"$e1",\#(tail),"text":"hi","x":1}"#,
                #":2: unknown field "x"; remove it (allowed: clientMessageId, eventId, kind, redacted, replaces, senderId, sentAt, sequence, text)"#
            ),
        ] as [(StoreProtocol, String, String)])
    func refusals(storeProtocol: StoreProtocol, record: String, expected: String) {
        let bytes = Array("[\n\(record)\n]\n".utf8)
        let decoded = SegmentFile.decode(bytes, path: Self.path, range: nil, protocol: storeProtocol)
        #expect(decoded.messages.isEmpty)
        #expect(
            decoded.problems.contains { $0.description.hasPrefix(Self.path + expected) },
            "\(decoded.problems.map(\.description))")
    }

    @Test("a Matrix text may be empty or 65,536 bytes of any number of characters, not one byte more")
    func matrixTextBounds() throws {
        var messages = try Self.matrixMessages()
        messages[0].text = String(repeating: "a", count: DomainError.maxTextBytes)
        messages[1].text = ""
        #expect(
            SegmentFile.decode(SegmentFile.encode(messages), path: "s", range: nil, protocol: .matrix).messages
                == messages)
        messages[0].text += "a"
        let decoded = SegmentFile.decode(SegmentFile.encode(messages), path: Self.path, range: nil, protocol: .matrix)
        #expect(decoded.messages == Array(messages[1...]))
        #expect(
            decoded.problems.map(\.description) == [
                "\(Self.path):2: \"text\": the message text is 65537 bytes of UTF-8; at most 65536 are allowed"
            ])
    }

    @Test("one event ID twice is refused in a segment, and across segments by check")
    func eventOnce() throws {
        var messages = try Self.matrixMessages()
        messages[1].eventID = messages[0].eventID
        messages[1].replaces = nil
        let decoded = SegmentFile.decode(SegmentFile.encode(messages), path: Self.path, range: nil, protocol: .matrix)
        #expect(
            decoded.problems.map(\.description) == [
                "\(Self.path):3: event ID $e1 appears twice (also on line 2); an event is stored once, keep one of the two records"
            ])

        let directory = try TemporaryDirectory()
        let store = try Self.matrixStore(in: directory)
        var later = try Self.matrixMessages()[1]
        later.sequence = 11
        later.eventID = try EventID("$e1")
        later.replaces = nil
        _ = try StoreWriter(store: store).save([try Self.matrixMessages()[0], later], in: Self.room)
        let report = StoreChecker.check(root: store.root)
        #expect(
            report.errors.map(\.description) == [
                "conversations/room/messages/0000000011-0000000020.json:2: event ID $e1 (sequence 11) is also stored in conversations/room/messages/0000000001-0000000010.json; an event is stored once, remove one of the two records"
            ])
    }

    @Test("check reads a Matrix store's records as Matrix records and a wire v1 store's as wire v1")
    func checkByProtocol() throws {
        let directory = try TemporaryDirectory()
        let wire = try makeStore(in: directory)
        let messages = try Self.matrixMessages()
        // The Matrix records, bytes placed by hand in a wire v1 store: damage, key by key.
        try FileManager.default.createDirectory(
            atPath: wire.root + "/conversations/room/messages", withIntermediateDirectories: true)
        try Data(SegmentFile.encode(messages)).write(
            to: URL(fileURLWithPath: wire.root + "/" + Self.path))
        let report = StoreChecker.check(root: wire.root)
        let errors = report.errors.map(\.description)
        #expect(errors.contains { $0.hasPrefix(Self.path + ":2: \"eventId\" is a field of a Matrix store's records") })
        #expect(errors.contains { $0.hasPrefix(Self.path + ":3: \"kind\" is a field of a Matrix store's records") })
        #expect(errors.contains { $0.hasPrefix(Self.path + ":3: \"replaces\" is a field of a Matrix store's records") })
        #expect(errors.contains { $0.hasPrefix(Self.path + ":4: \"redacted\" is a field of a Matrix store's records") })
    }

    @Test("the writer's splice refuses an event ID already in the segment")
    func spliceRefusesRepeatedEvent() throws {
        let messages = try Self.matrixMessages()
        let bytes = SegmentFile.encode(messages)
        var repeated = messages[0]
        repeated.sequence = 4
        repeated.clientMessageID = try ClientMessageID("11111111-2222-4333-8444-555555555555")
        #expect(SegmentFile.appending([repeated], to: bytes, after: 3) == nil)
        repeated.eventID = try EventID("$e4")
        #expect(SegmentFile.appending([repeated], to: bytes, after: 3) == SegmentFile.encode(messages + [repeated]))
    }

    @Test(
        "the largest Matrix record, every field at its longest and escaped most, fits the Matrix bound; wire v1's is unchanged"
    )
    func recordBound() throws {
        let quotes = String(repeating: "\"", count: 254)
        let event = try EventID("$" + quotes)
        let largest = Message(
            sequence: Message.maxSequence, clientMessageID: Self.ids[0],
            senderID: try UserID("@" + String(repeating: "\\", count: 199) + ":" + String(repeating: "a", count: 54)),
            text: String(repeating: "\u{1}", count: DomainError.maxTextBytes),
            sentAt: String(repeating: "\u{1}", count: Message.maxSentAtBytes), eventID: event,
            kind: try MessageKind(String(repeating: "\"", count: MessageKind.maxBytes)), redacted: true,
            replaces: event)
        var writer = JSONWriter()
        largest.writeRecord(into: &writer)
        #expect(writer.bytes.count + 2 <= StoreFiles.maxMatrixRecordBytes)
        #expect(writer.bytes.count + 2 > StoreFiles.maxRecordBytes)
        #expect(StoreFiles.maxSegmentBytes(segmentSize: 2) == 2 * (6 * 65_536 + 1_024) + 4)
        #expect(
            StoreFiles.maxSegmentBytes(segmentSize: 2, protocol: .matrix) == 2 * StoreFiles.maxMatrixRecordBytes + 4)
    }
}
