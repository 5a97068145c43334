import Testing

@testable import ChatMatrix

/// The identifier grammar: sigils, server names, the 255-byte cap, room version 12's room IDs.
@Suite struct MatrixIdentifierTests {
    @Test(
        "valid identifiers are accepted",
        arguments: [
            "@alice:localhost", "@alice:example.org:8448", "@a.b_c=d-e/f+g:[::1]:8008", "@Legacy!User:1.2.3.4",
        ])
    func validUsers(_ text: String) throws {
        #expect(try MatrixUserID(text).rawValue == text)
    }

    @Test(
        "invalid user IDs are refused with the rule they break",
        arguments: [
            ("alice:localhost", #"does not start with "@""#), ("@alice", #"no ":" and server name"#),
            ("@:localhost", "the part before the server name is empty"),
            ("@al ice:localhost", "the local part holds a character outside printable ASCII"),
            ("@alice:", "the server name is empty"), ("@alice:exa_mple.org", "the server name holds a character"),
            ("@alice:host:123456", "the server name's port is not 1 to 5 digits"),
            ("@alice:[::1", #"an IPv6 server name without "]""#), ("@alice:[zz]", "not an IPv6 address"),
            ("@" + String(repeating: "a", count: 250) + ":b.cd", "256 bytes, more than 255"),
        ])
    func invalidUsers(text: String, reason: String) {
        do {
            _ = try MatrixUserID(text)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.kind == "user ID" && error.reason.hasPrefix(reason), "\(error)")
        }
    }

    @Test(
        "a user ID's server name is everything after the first colon, port kept",
        arguments: [
            ("@alice:localhost", "localhost"), ("@alice:example.org:8448", "example.org:8448"),
            ("@a.b_c=d-e/f+g:[::1]:8008", "[::1]:8008"),
        ])
    func serverName(_ text: String, _ serverName: String) throws {
        #expect(try MatrixUserID(text).serverName == serverName)
    }

    @Test("room IDs with and without a server name (room version 12 has none)")
    func rooms() throws {
        #expect(try MatrixRoomID("!v73pvSetDteasFd3kTpGE8WOQ_10F39YkTerUExr3Jc").rawValue.count == 44)
        #expect(try MatrixRoomID("!abc:example.org").rawValue == "!abc:example.org")
        #expect(throws: MatrixIdentifierError.self) { try MatrixRoomID("!") }
        #expect(throws: MatrixIdentifierError.self) { try MatrixRoomID("#abc:example.org") }
        #expect(throws: MatrixIdentifierError.self) { try MatrixRoomID("!abc:bad host") }
    }

    @Test("event IDs of room versions 1–2 and 3+, and aliases")
    func eventsAndAliases() throws {
        #expect(try MatrixEventID("$OiNDyDhZn9JEBTloK0FzXQKHGej-qy7wl1PRKraaxDU").rawValue.hasPrefix("$"))
        #expect(try MatrixEventID("$1234:example.org").rawValue == "$1234:example.org")
        #expect(throws: MatrixIdentifierError.self) { try MatrixEventID("$") }
        #expect(try MatrixRoomAlias("#dinner:example.org").rawValue == "#dinner:example.org")
        #expect(throws: MatrixIdentifierError.self) { try MatrixRoomAlias("#dinner") }
    }

    @Test("a refusal quotes the text on one line, cut short")
    func quoting() {
        do {
            _ = try MatrixUserID("@a\n\u{1B}[31m" + String(repeating: "x", count: 100))
            Issue.record("accepted")
        } catch {
            #expect(!error.description.contains("\n") && !error.description.contains("\u{1B}"))
            #expect(error.description.contains("…"))
        }
    }
}
