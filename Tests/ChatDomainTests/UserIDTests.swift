import ChatDomain
import Testing

@Suite struct UserIDTests {
    @Test(
        "Matrix user IDs are user IDs; names stay names",
        arguments: ["alice", "bob-2.x_y", "@alice:example.org", "@a:[::1]:8448", "@x=y/z!:host:1", "@Élan"])
    func accepted(_ text: String) throws {
        if text == "@Élan" {
            #expect(throws: DomainError.self) { try UserID(text) }
            return
        }
        let id = try UserID(text)
        #expect(id.rawValue == text)
        #expect(id.isMatrix == text.hasPrefix("@"))
    }

    @Test(
        "what neither grammar allows is refused, saying which rule",
        arguments: [
            ("", "is empty"), ("@alice", "no \":\" and server name"), ("@:example.org", "empty"),
            ("@a:exa mple.org", "server name"), (".hidden", "must start"), ("a/b", "may contain only"),
        ])
    func refused(_ text: String, _ reason: String) {
        #expect {
            try UserID(text)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }

    @Test("wire v1's strict form refuses a Matrix user ID")
    func nameOnly() throws {
        #expect(throws: DomainError.self) { try UserID.name("@alice:example.org") }
        #expect(try UserID.name("alice").rawValue == "alice")
    }

    @Test(
        "a file name escapes what a path component must not hold, and reads back to the same ID",
        arguments: [
            ("alice", "alice"), ("@bob:example.org", "@bob%3Aexample.org"),
            ("@a/../b:host", "@a%2F..%2Fb%3Ahost"), ("@50%:[::1]:8448", "@50%25%3A%5B%3A%3A1%5D%3A8448"),
        ])
    func fileNames(_ text: String, _ fileName: String) throws {
        let id = try UserID(text)
        #expect(id.fileName == fileName)
        #expect(UserID.named(fileName: fileName) == id)
        #expect(!fileName.contains("/") && !fileName.contains(":"))
    }

    @Test(
        "a file name that is not exactly some ID's file name names nobody",
        arguments: [
            "@bob%3aexample.org", "@bob:example.org", "@bob%3Aexample.org%", "@bob%3", "@b%6Fb%3Aexample.org",
            "%40bob%3Aexample.org", ".typing", "@bob%2",
        ])
    func foreignFileNames(_ fileName: String) {
        #expect(UserID.named(fileName: fileName) == nil)
    }

    @Test("a Matrix ID whose escaped form is over 255 bytes has no file name")
    func tooLong() throws {
        let id = try UserID("@" + String(repeating: "/", count: 100) + ":example.org")
        #expect(id.fileName == nil)
    }
}

@Suite struct UserIDErrorTests {
    @Test("a broken Matrix user ID is told the Matrix grammar, a broken name the name grammar")
    func wording() {
        do {
            _ = try UserID("@alice")
            Issue.record("accepted")
        } catch {
            #expect(
                error.description
                    == #"invalid user ID "@alice": not a Matrix user ID: no ":" and server name (a Matrix user ID is @localpart:server, like @alice:example.org, up to 255 bytes)"#
            )
        }
        do {
            _ = try UserID(".alice")
            Issue.record("accepted")
        } catch {
            #expect(error.description.contains("letters, digits"))
        }
    }
}
