import ChatDomain
import Testing

@testable import ChatMatrix

/// Answers no honest homeserver sends: each is refused with one short line that names the field.
@Suite struct MatrixHostileInputTests {
    /// A valid event with `content` as given.
    static func event(_ content: String, type: String = "m.room.message", id: String = "$e1") -> String {
        #"{"type":"\#(type)","event_id":"\#(id)","sender":"@bob:example.org","origin_server_ts":1,"content":\#(content)}"#
    }

    /// A `/sync` answer whose one joined room `!abc` has `events` in its timeline.
    static func sync(_ events: [String], room: String = "!abc") -> String {
        #"{"next_batch":"s1","rooms":{"join":{"\#(room)":{"timeline":{"events":[\#(events.joined(separator: ","))]}}}}}"#
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var json: String
        var expected: String
        var testDescription: String { name }
    }

    static let syncCases: [Case] = [
        Case(
            name: "a sender without a server",
            json: sync([
                event(#"{"msgtype":"m.text","body":"hi"}"#).replacingOccurrences(of: "@bob:example.org", with: "@bob")
            ]),
            expected: #"rooms.join.!abc.timeline.events[0].sender: not a user ID ("@bob"): no ":" and server name"#),
        Case(
            name: "a room ID without its sigil", json: sync([], room: "abc:example.org"),
            expected: #"rooms.join.abc:example.org: not a room ID ("abc:example.org"): does not start with "!""#),
        Case(
            name: "an event ID of 256 bytes", json: sync([event("{}", id: "$" + String(repeating: "a", count: 255))]),
            expected: "rooms.join.!abc.timeline.events[0].event_id: not an event ID"),
        Case(
            name: "a time stamp past 2^53",
            json: sync([
                event("{}").replacingOccurrences(
                    of: #""origin_server_ts":1"#, with: #""origin_server_ts":9007199254740992"#)
            ]),
            expected:
                "rooms.join.!abc.timeline.events[0].origin_server_ts: 9007199254740992 is outside 0…9007199254740991"),
        Case(
            name: "a negative time stamp",
            json: sync([event("{}").replacingOccurrences(of: #""origin_server_ts":1"#, with: #""origin_server_ts":-1"#)]
            ),
            expected: "rooms.join.!abc.timeline.events[0].origin_server_ts: -1 is outside 0…9007199254740991"),
        Case(
            name: "a fractional time stamp",
            json: sync([
                event("{}").replacingOccurrences(of: #""origin_server_ts":1"#, with: #""origin_server_ts":1.5"#)
            ]),
            expected:
                "rooms.join.!abc.timeline.events[0].origin_server_ts: not a whole number (found a number with a fraction)"
        ),
        Case(
            name: "1,001 timeline events", json: sync(Array(repeating: event("{}"), count: 1_001)),
            expected: "rooms.join.!abc.timeline.events: 1001 entries, more than 1000"),
        Case(
            name: "limited as a string",
            json: #"{"next_batch":"s1","rooms":{"join":{"!abc":{"timeline":{"events":[],"limited":"yes"}}}}}"#,
            expected: "rooms.join.!abc.timeline.limited: not true or false (found a string)"),
        Case(
            name: "no next_batch", json: #"{"rooms":{}}"#, expected: "next_batch: missing"),
        Case(
            name: "a next_batch with a space", json: #"{"next_batch":"s 1"}"#,
            expected: "next_batch: not a token (printable ASCII without spaces)"),
        Case(
            name: "a typing list of numbers",
            json:
                #"{"next_batch":"s1","rooms":{"join":{"!abc":{"ephemeral":{"events":[{"type":"m.typing","content":{"user_ids":[1]}}]}}}}}"#,
            expected: "rooms.join.!abc.ephemeral.events[0].content.user_ids[0]: not a string (found an integer)"),
        Case(
            name: "a receipt by someone who is not a user",
            json:
                #"{"next_batch":"s1","rooms":{"join":{"!abc":{"ephemeral":{"events":[{"type":"m.receipt","content":{"$e":{"m.read":{"bob":{"ts":1}}}}}]}}}}}"#,
            expected:
                #"rooms.join.!abc.ephemeral.events[0].content.$e.m.read.bob: not a user ID ("bob"): does not start with "@""#
        ),
        Case(
            name: "a room key with a line break (the reason stays on one line)",
            json: #"{"next_batch":"s1","rooms":{"join":{"!a\nb":{}}}}"#,
            expected:
                #"rooms.join.!a?b: not a room ID ("!a?b"): the local part holds a character outside printable ASCII"#),
        Case(
            name: "rooms.join as an array", json: #"{"next_batch":"s1","rooms":{"join":[]}}"#,
            expected: "rooms.join: not an object (found an array)"),
        Case(
            name: "content nested 300 deep (Synapse accepts 126 at most)",
            json: sync([event(String(repeating: "[", count: 300) + String(repeating: "]", count: 300))]),
            expected: "not valid JSON (nesting deeper than 256 levels"),
        Case(name: "not JSON", json: "<html>", expected: "not valid JSON"),
    ]

    @Test("a hostile /sync answer is refused, naming the field", arguments: syncCases)
    func hostileSync(_ hostile: Case) {
        do {
            _ = try MatrixDecoder.sync(Array(hostile.json.utf8))
            Issue.record("accepted")
        } catch {
            #expect(error.description.hasPrefix(hostile.expected), "\(error.description)")
            #expect(
                !error.description.contains("\n")
                    && error.description.count <= MatrixDecodingError.maxDescriptionLength + 1)
        }
    }

    /// Content any member can send that breaks the API: that event alone is unreadable, with a
    /// reason whose path starts at `content` (the same from `/sync` and `/messages`); the events
    /// around it and the rest of the answer are read.
    static let unreadableCases: [Case] = [
        Case(
            name: "a body that is a number", json: #"{"msgtype":"m.text","body":5}"#,
            expected: "content.body: not a string (found an integer)"),
        Case(
            name: "a body over 65,536 bytes",
            json: #"{"msgtype":"m.text","body":""# + String(repeating: "x", count: 65_537) + #""}"#,
            expected: "content.body: 65537 bytes, more than 65536"),
        Case(
            name: "an edit without the event it replaces",
            json: #"{"msgtype":"m.text","body":"x","m.relates_to":{"rel_type":"m.replace"}}"#,
            expected: "content.m.relates_to.event_id: missing"),
        Case(
            name: "a chatdir client message ID that is not one",
            json: #"{"msgtype":"m.text","body":"x","org.chatdir.cmid":"../../etc"}"#,
            expected: "content.org.chatdir.cmid: not a client message ID"),
        Case(
            name: "content nested 125 deep, as Synapse accepts",
            json: #"{"msgtype":"m.text","body":"deep","x":"#
                + String(repeating: "[", count: 125) + String(repeating: "]", count: 125) + "}",
            expected: ""),
    ]

    @Test("one member's unreadable content is that event's alone", arguments: unreadableCases)
    func unreadableContent(_ hostile: Case) throws {
        let before = Self.event(#"{"msgtype":"m.text","body":"before"}"#, id: "$b")
        let after = Self.event(#"{"msgtype":"m.text","body":"after"}"#, id: "$a")
        let middle = Self.event(hostile.json, id: "$m")
        let sync = try MatrixDecoder.sync(Array(Self.sync([before, middle, after]).utf8))
        let events = sync.joined[0].timeline.events
        #expect(events.map(\.eventID.rawValue) == ["$b", "$m", "$a"])
        #expect(events[0].content == .message(MatrixMessageContent(body: "before")))
        #expect(events[2].content == .message(MatrixMessageContent(body: "after")))
        if hostile.expected.isEmpty {
            #expect(events[1].content == .message(MatrixMessageContent(body: "deep")))
        } else if case .unreadable(let reason) = events[1].content {
            #expect(reason.hasPrefix(hostile.expected), "\(reason)")
        } else {
            Issue.record("read as \(events[1].content)")
        }
        // The same event from /messages reads the same.
        let page = try MatrixDecoder.messages(Array(#"{"chunk":[\#(middle)],"start":"t1"}"#.utf8))
        #expect(page.chunk.first?.content == events[1].content)
    }

    @Test("an m.room.encryption whose algorithm cannot be read still marks the room encrypted")
    func unreadableEncryption() throws {
        let state = Self.event(#"{"algorithm":7}"#, type: "m.room.encryption").replacingOccurrences(
            of: #""content""#, with: #""state_key":"","content""#)
        let json = #"{"next_batch":"s1","rooms":{"join":{"!abc":{"state":{"events":[\#(state)]}}}}}"#
        let sync = try MatrixDecoder.sync(Array(json.utf8))
        #expect(
            sync.joined[0].state.first?.content
                == .encryption(algorithm: "content.algorithm: not a string (found an integer)"))
    }

    @Test("unknown keys are ignored everywhere, known keys are still read")
    func unknownKeys() throws {
        let json = #"""
            {"next_batch":"s1","x.future":[1,{"a":null}],"rooms":{"knock":{},"join":{"!abc":{"summary":{"m.heroes":[]},
            "unread_notifications":{"highlight_count":0},"timeline":{"events":[{"type":"m.room.message","event_id":"$e",
            "sender":"@bob:example.org","origin_server_ts":1,"room_id":"!abc","hashes":{"sha256":"x"},
            "content":{"msgtype":"m.text","body":"hi","format":"org.matrix.custom.html","formatted_body":"<b>hi</b>",
            "m.mentions":{}},"unsigned":{"age":5,"membership":"join"}},
            {"type":"com.example.custom","event_id":"$f","sender":"@bob:example.org","origin_server_ts":2,
            "content":{"body":7}}],"limited":false,"x":1}}}}}
            """#
        let sync = try MatrixDecoder.sync(Array(json.utf8))
        let events = sync.joined[0].timeline.events
        #expect(events[0].content == .message(MatrixMessageContent(body: "hi")))
        #expect(events[1].content == .other && events[1].type == "com.example.custom")
    }

    @Test("null for an optional key reads as absent; for a required one it is missing")
    func nulls() throws {
        let page = try MatrixDecoder.messages(Array(#"{"chunk":[],"start":"t1","end":null,"state":null}"#.utf8))
        #expect(page.end == nil && page.state.isEmpty)
        #expect(throws: MatrixDecodingError.invalid(path: "start", reason: "missing")) {
            try MatrixDecoder.messages(Array(#"{"chunk":[],"start":null}"#.utf8))
        }
    }

    @Test(
        "the smaller answers refuse a known key of the wrong type",
        arguments: [
            (
                #"{"access_token":"t","device_id":"D","user_id":"@a:b","expires_in_ms":0}"#,
                "expires_in_ms: 0 is outside 1…9007199254740991"
            ),
            (
                #"{"access_token":"t t","device_id":"D","user_id":"@a:b"}"#,
                "access_token: not a token (printable ASCII without spaces)"
            ),
            (#"{"access_token":"t","device_id":"D E","user_id":"@a:b"}"#, #"device_id: not a device ID ("D E")"#),
            (
                #"{"access_token":"t","device_id":"D","user_id":"@a:b","refresh_token":true}"#,
                "refresh_token: not a string (found a boolean)"
            ),
        ])
    func login(json: String, expected: String) {
        #expect(throws: (any Error).self) { try MatrixDecoder.login(Array(json.utf8)) }
        do { _ = try MatrixDecoder.login(Array(json.utf8)) } catch { #expect(error.description == expected) }
    }

    @Test(
        "a refresh answer refuses a missing or malformed token and a lifetime out of range",
        arguments: [
            (#"{"refresh_token":"r","expires_in_ms":1000}"#, "access_token: missing"),
            (
                #"{"access_token":"t","refresh_token":"r s"}"#,
                "refresh_token: not a token (printable ASCII without spaces)"
            ),
            (#"{"access_token":"t","expires_in_ms":-5}"#, "expires_in_ms: -5 is outside 1…9007199254740991"),
        ])
    func refresh(json: String, expected: String) {
        #expect(throws: (any Error).self) { try MatrixDecoder.refresh(Array(json.utf8)) }
        do { _ = try MatrixDecoder.refresh(Array(json.utf8)) } catch { #expect(error.description == expected) }
    }

    @Test("an errcode with a C1 control or a line separator is refused, so it never reaches a log line")
    func errcodeControls() {
        for errcode in ["M_X\u{85}", "M_X\u{2028}", "M_X\u{9B}31m"] {
            let json = #"{"errcode":"\#(errcode)"}"#
            #expect(throws: MatrixDecodingError.self) { try MatrixDecoder.errorBody(Array(json.utf8)) }
        }
    }

    @Test("an error body whose retry_after_ms is not a number is refused, so it is never trusted")
    func errorBody() {
        let json = #"{"errcode":"M_LIMIT_EXCEEDED","retry_after_ms":"soon"}"#
        #expect(
            throws: MatrixDecodingError.invalid(path: "retry_after_ms", reason: "not a whole number (found a string)")
        ) {
            try MatrixDecoder.errorBody(Array(json.utf8))
        }
    }

    @Test("a well-known base URL must be http(s)")
    func wellKnown() throws {
        #expect(
            try MatrixDecoder.wellKnown(Array(#"{"m.homeserver":{"base_url":"https://matrix.example.org"}}"#.utf8))
                .homeserverBaseURL == "https://matrix.example.org")
        #expect(
            throws: MatrixDecodingError.invalid(
                path: "m.homeserver.base_url", reason: #"not an http(s) URL: "file:///etc/passwd""#)
        ) {
            try MatrixDecoder.wellKnown(Array(#"{"m.homeserver":{"base_url":"file:///etc/passwd"}}"#.utf8))
        }
    }
}
