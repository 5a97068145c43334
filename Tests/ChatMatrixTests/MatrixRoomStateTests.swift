import ChatDomain
import ChatMatrix
import Testing

/// A room's state as chatdir keeps it, from the state events of a `/sync`.
@Suite struct MatrixRoomStateTests {
    static let room = try! MatrixRoomID("!room:example.org")

    static func state(_ type: String, _ key: String, _ content: MatrixEventContent, id: String) -> MatrixEvent {
        MatrixEvent(
            type: type, eventID: try! MatrixEventID("$" + id), sender: try! MatrixUserID("@bob:example.org"),
            originServerTimestamp: 0, stateKey: key, content: content)
    }

    @Test("a later event of one type and key replaces the earlier; only joined members count, sorted")
    func latestWins() {
        let state = MatrixRoomState(
            roomID: Self.room,
            events: [
                Self.state("m.room.name", "", .name("Old"), id: "1"),
                Self.state(
                    "m.room.member", "@carol:example.org", .member(membership: "join", displayName: nil), id: "2"),
                Self.state("m.room.member", "@bob:example.org", .member(membership: "join", displayName: nil), id: "3"),
                Self.state(
                    "m.room.member", "@dan:example.org", .member(membership: "invite", displayName: nil), id: "4"),
                Self.state("m.room.name", "", .name("New"), id: "5"),
                Self.state(
                    "m.room.member", "@carol:example.org", .member(membership: "leave", displayName: nil), id: "6"),
                Self.state("m.room.canonical_alias", "", .canonicalAlias("#room:example.org"), id: "7"),
            ])
        #expect(state.name == "New")
        #expect(state.canonicalAlias == "#room:example.org")
        #expect(state.members.map(\.rawValue) == ["@bob:example.org"])
        #expect(!state.encrypted)
    }

    @Test("encryption counts even redacted or unreadable; a message event is no state")
    func encryption() {
        for content in [MatrixEventContent.redacted, .encryption(algorithm: "content.algorithm: missing")] {
            let state = MatrixRoomState(
                roomID: Self.room, events: [Self.state("m.room.encryption", "", content, id: "e")])
            #expect(state.encrypted)
        }
        let message = MatrixEvent(
            type: "m.room.message", eventID: try! MatrixEventID("$m"), sender: try! MatrixUserID("@bob:example.org"),
            originServerTimestamp: 0, content: .message(MatrixMessageContent(body: "m.room.name")))
        #expect(MatrixRoomState(roomID: Self.room, events: [message]) == MatrixRoomState(roomID: Self.room, events: []))
    }

    @Test("a redacted name is no name")
    func redactedName() {
        let state = MatrixRoomState(
            roomID: Self.room,
            events: [
                Self.state("m.room.name", "", .name("Old"), id: "1"), Self.state("m.room.name", "", .redacted, id: "2"),
            ])
        #expect(state.name == nil)
    }
}
