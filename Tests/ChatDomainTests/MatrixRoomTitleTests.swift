import ChatDomain
import Testing

/// The title rule for a Matrix room's `conversation.json`.
@Suite struct MatrixRoomTitleTests {
    static let me = try! UserID("@alice:example.org")
    static let bob = try! UserID("@bob:example.org")
    static let carol = try! UserID("@carol:example.net")

    @Test(
        "the name, else the canonical alias, else the other members sorted, else the room ID",
        arguments: [
            ("Dinner", "#dinner:example.org", [me, bob], "Dinner"),
            (nil, "#dinner:example.org", [me, bob], "#dinner:example.org"),
            ("", "#dinner:example.org", [me, bob], "#dinner:example.org"),
            (nil, nil, [carol, me, bob], "@bob:example.org, @carol:example.net"),
            (nil, "", [bob], "@bob:example.org"),
            (nil, nil, [me], "!room:example.org"),
            (nil, nil, [], "!room:example.org"),
        ] as [(String?, String?, [UserID], String)])
    func title(name: String?, alias: String?, members: [UserID], expected: String) {
        #expect(
            MatrixRoomTitle.title(
                name: name, canonicalAlias: alias, members: members, me: Self.me, roomID: "!room:example.org")
                == expected)
    }
}
