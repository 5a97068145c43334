import ChatTestSupport
import Foundation
import Testing

@testable import ChatDomain

/// A Matrix store's message records in the domain: the event ID and kind types, the client
/// message ID derived from an event ID, and the record's bytes.
@Suite struct MatrixRecordTests {
    static let eventIDs = [
        "$Rqnc-F-dvnEYJTyHq_iKxU2bZ1CI92-kuZq3a5lr5Zg", "$143273582443PhrSn:example.org", "$a",
        "$" + String(repeating: "x", count: 254),
    ]

    /// What Python's hashlib and uuid make of `eventID` by the rule docs/FORMAT.md gives: the
    /// first 16 bytes of SHA-256, version 8, variant 10, upper-case.
    static func pythonDerived(_ eventIDs: [String]) throws -> [String] {
        let script = """
            import hashlib, sys, uuid
            for line in sys.stdin.read().split("\\n"):
                b = bytearray(hashlib.sha256(line.encode()).digest()[:16])
                b[6] = (b[6] & 0x0F) | 0x80
                b[8] = (b[8] & 0x3F) | 0x80
                print(str(uuid.UUID(bytes=bytes(b))).upper())
            """
        let result = try ChatdirProcess.run(
            ["-c", script], input: eventIDs.joined(separator: "\n"),
            executable: URL(fileURLWithPath: "/usr/bin/python3"))
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test("the client message ID derived from an event ID is the one Python's hashlib and uuid compute")
    func derivedAgreesWithPython() throws {
        let expected = try Self.pythonDerived(Self.eventIDs)
        #expect(expected.count == Self.eventIDs.count)
        for (text, python) in zip(Self.eventIDs, expected) {
            let derived = ClientMessageID.derived(fromEventID: try EventID(text))
            #expect(derived.rawValue == python, "\(text)")
        }
    }

    @Test("a derived ID is a canonical version 8 UUID, the same every time, different for another event")
    func derivedShape() throws {
        let id = ClientMessageID.derived(fromEventID: try EventID("$Rqnc-F-dvnEYJTyHq_iKxU2bZ1CI92-kuZq3a5lr5Zg"))
        #expect(id.rawValue == "4F27D015-E6FA-85C5-A366-94D3C485DBAB")
        #expect(try ClientMessageID(id.rawValue) == id)
        #expect(
            ClientMessageID.derived(fromEventID: try EventID("$b"))
                != ClientMessageID.derived(fromEventID: try EventID("$a")))
    }

    @Test(
        "event IDs follow the identifier grammar with \"$\", a server name optional",
        arguments: [
            ("$abc", true), ("$abc:example.org", true), ("$abc:[::1]:8448", true), ("abc", false), ("$", false),
            ("@alice:example.org", false), ("$a b", false), ("$abc:", false), ("$é", false),
            ("$" + String(repeating: "x", count: 254), true), ("$" + String(repeating: "x", count: 255), false),
        ])
    func eventIDGrammar(text: String, valid: Bool) {
        #expect(((try? EventID(text)) != nil) == valid)
    }

    @Test(
        "kinds: m.text has none, the m. msgtypes lose their prefix, any other is kept as given",
        arguments: [
            ("m.text", nil), ("m.emote", "emote"), ("m.notice", "notice"), ("m.image", "image"), ("m.file", "file"),
            ("m.audio", "audio"), ("m.video", "video"), ("m.location", "location"),
            ("org.example.poll", "org.example.poll"), ("m.key.verification.request", "m.key.verification.request"),
        ] as [(String, String?)])
    func kinds(msgtype: String, kind: String?) throws {
        #expect(try MessageKind.of(msgtype: msgtype)?.rawValue == kind)
    }

    @Test(
        "a kind is 1 to 255 bytes without control characters",
        arguments: [
            ("", "invalid message kind \"\": it is empty"),
            (String(repeating: "k", count: 256), "it is 256 bytes long, more than 255"),
            ("a\u{1}b", "it holds a control character"),
        ])
    func badKinds(text: String, words: String) {
        #expect(throws: DomainError.self) { try MessageKind(text) }
        do {
            _ = try MessageKind(text)
        } catch {
            #expect(error.description.contains(words), "\(error)")
        }
    }

    static let id = try! ClientMessageID("6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3")

    static func record(_ message: Message) -> String {
        var writer = JSONWriter()
        message.writeRecord(into: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    @Test("a message without Matrix fields is written as wire v1's record, byte for byte")
    func wireRecordUnchanged() throws {
        let message = Message(
            sequence: 7, clientMessageID: Self.id, senderID: try UserID("bob"), text: "hi \"you\"",
            sentAt: "2026-11-29T10:00:00.000Z")
        #expect(
            Self.record(message)
                == #"{"clientMessageId":"6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3","senderId":"bob","sentAt":"2026-11-29T10:00:00.000Z","sequence":7,"text":"hi \"you\""}"#
        )
    }

    @Test("a Matrix record writes its fields in sorted key order, each only when present")
    func matrixRecord() throws {
        let bob = try UserID("@bob:example.org")
        let plain = Message(
            sequence: 1_000_000_000, clientMessageID: Self.id, senderID: bob, text: "hi",
            sentAt: "2026-11-29T10:00:00.000Z", eventID: try EventID("$e1"))
        #expect(
            Self.record(plain)
                == #"{"clientMessageId":"6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3","eventId":"$e1","senderId":"@bob:example.org","sentAt":"2026-11-29T10:00:00.000Z","sequence":1000000000,"text":"hi"}"#
        )
        let edit = Message(
            sequence: 1_000_000_001, clientMessageID: Self.id, senderID: bob, text: "waves again",
            sentAt: "2026-11-29T10:00:01.000Z", eventID: try EventID("$e2"), kind: .emote,
            replaces: try EventID("$e1"))
        #expect(
            Self.record(edit)
                == #"{"clientMessageId":"6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3","eventId":"$e2","kind":"emote","replaces":"$e1","senderId":"@bob:example.org","sentAt":"2026-11-29T10:00:01.000Z","sequence":1000000001,"text":"waves again"}"#
        )
        let event = try EventID("$e3")
        let redacted = Message(
            sequence: 1_000_000_002, clientMessageID: .derived(fromEventID: event), senderID: bob, text: "",
            sentAt: "2026-11-29T10:00:02.000Z", eventID: event, redacted: true)
        #expect(
            Self.record(redacted)
                == #"{"clientMessageId":"\#(ClientMessageID.derived(fromEventID: event))","eventId":"$e3","redacted":true,"senderId":"@bob:example.org","sentAt":"2026-11-29T10:00:02.000Z","sequence":1000000002,"text":""}"#
        )
    }

    @Test("recordKeys lists every key a record may have, sorted; the wire's are the first five")
    func keys() {
        #expect(
            Message.recordKeys == [
                "clientMessageId", "eventId", "kind", "redacted", "replaces", "senderId", "sentAt", "sequence", "text",
            ])
        #expect(Message.wireRecordKeys == ["clientMessageId", "senderId", "sentAt", "sequence", "text"])
    }
}
