import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatStore

/// `.invitations`: what the last listing found, for `chatdir list`; its bytes are canonical
/// JSON lines, bounded whatever a homeserver sends, and a file that is not what the writer
/// writes reads as none.
@Suite(.ownThreads) struct InvitationsFileTests {
    @Test("the writer's bytes: one object a line, keys sorted, rooms sorted and once; none removes the file")
    func bytesOnDisk() throws {
        let directory = try TemporaryDirectory()
        let root = directory.path
        let invitations = [
            Invitation(room: "!b:example.org", name: "Picnic \"at 8\"", inviter: "@bob:example.org"),
            Invitation(room: "!a:example.org", name: nil, inviter: nil),
            Invitation(room: "!b:example.org", name: "again", inviter: nil),
        ]
        try InvitationsFile.write(invitations, storeRoot: root)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: root + "/.invitations"))
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == """
                {"room":"!a:example.org"}
                {"inviter":"@bob:example.org","name":"Picnic \\"at 8\\"","room":"!b:example.org"}

                """)
        #expect(InvitationsFile.read(storeRoot: root) == [invitations[1], invitations[0]])
        try InvitationsFile.write([], storeRoot: root)
        #expect(!FileManager.default.fileExists(atPath: root + "/.invitations"))
        try InvitationsFile.write([], storeRoot: root)
        #expect(InvitationsFile.read(storeRoot: root) == [])
    }

    @Test("a hostile homeserver's invitations stay bounded: names cut at a character, long IDs and extras dropped")
    func bounded() {
        let long = String(repeating: "é", count: 200)
        let many = (0..<1_500).map { Invitation(room: "!room\($0):x", name: nil, inviter: nil) }
        let kept = InvitationsFile.kept(
            many + [
                Invitation(room: "!" + String(repeating: "r", count: 300), name: nil, inviter: nil),
                Invitation(room: "!0:x", name: long, inviter: "@" + String(repeating: "m", count: 300)),
            ])
        #expect(kept.count == InvitationsFile.maxInvitations)
        #expect(kept.allSatisfy { $0.room.utf8.count <= 255 && $0.room != "!0:x" })
        let named = InvitationsFile.kept([Invitation(room: "!n:x", name: long, inviter: nil)])
        #expect(named.first?.name == String(repeating: "é", count: 127))
        let decoded = InvitationsFile.decode(InvitationsFile.encode(many))
        #expect(decoded?.count == InvitationsFile.maxInvitations)
    }

    @Test(
        "bytes the writer never writes read as none",
        arguments: [
            "{\"room\":\"!a:x\"}", "{\"room\":\"\"}\n", "{\"name\":\"n\"}\n", "{\"room\":\"!a:x\",\"other\":1}\n",
            "{\"room\":\"!a:x\",\"room\":\"!b:x\"}\n", "[]\n", "{\"room\":7}\n", "\n",
        ])
    func refused(_ text: String) {
        #expect(InvitationsFile.decode(Array(text.utf8)) == nil)
    }
}
