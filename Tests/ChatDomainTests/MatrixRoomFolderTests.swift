import ChatDomain
import ChatTestSupport
import Foundation
import Testing

/// A Matrix room's folder name (`ConversationID.matrixRoom`), checked against coreutils'
/// `sha256sum`, and always a valid name whatever the server chose as room ID.
@Suite struct MatrixRoomFolderTests {
    /// The first 20 hex digits `sha256sum` prints for `text`'s UTF-8 bytes.
    static func coreutilsHash(_ text: String) throws -> String {
        let result = try ChatdirProcess.run(
            [], input: text, executable: URL(fileURLWithPath: "/usr/bin/sha256sum"))
        #expect(result.status == 0, "\(result.stderr)")
        return String(result.stdout.prefix(20))
    }

    @Test("the example room's folder is its opaque part, a dash and the hash's first 20 hex digits")
    func example() {
        #expect(
            ConversationID.matrixRoom("!OGEhHVWSdvArJzumhm:example.org").rawValue
                == "OGEhHVWSdvArJzumhm-42c00ed2fbd96677f252")
    }

    @Test(
        "the readable part keeps the opaque part's ASCII letters and digits, at most 24; the hash is sha256sum's",
        arguments: [
            ("!OGEhHVWSdvArJzumhm:example.org", "OGEhHVWSdvArJzumhm"),
            // room version 12: no server name
            ("!ZVKqT3xYpd0Mw9aLkQeRnSbUcVfWgXh1iJ2", "ZVKqT3xYpd0Mw9aLkQeRnSbU"),
            ("!..:example.org", ""),
            ("!../../etc/passwd:example.org", "etcpasswd"),
            ("!a/b\\c.d_e-f:example.org", "abcdef"),
            ("!Äb€C😀d:example.org", "bCd"),
            ("!abc", "abc"),
            ("!:example.org", ""),
            ("", ""),
            ("no sigil:at all", "nosigil"),
            ("!x:y:z", "x"),
            ("!" + String(repeating: "a", count: 300) + ":example.org", String(repeating: "a", count: 24)),
        ])
    func name(roomID: String, readable: String) throws {
        let hash = try Self.coreutilsHash(roomID)
        let id = ConversationID.matrixRoom(roomID)
        #expect(id.rawValue == (readable.isEmpty ? hash : readable + "-" + hash))
        #expect(try ConversationID(id.rawValue) == id)
    }

    @Test("rooms that differ only in what the readable part drops get different folders")
    func distinct() {
        let rooms = ["!abc:example.org", "!a.bc:example.org", "!abc:example.net", "!abc", "!ABC:example.org"]
        #expect(Set(rooms.map(ConversationID.matrixRoom)).count == rooms.count)
    }
}
