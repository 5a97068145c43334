import ChatDomain
import Testing

@testable import ChatMatrix

/// The decoders read what a real homeserver sends: every fixture is an answer of Synapse
/// 1.163.2 (Fixtures/README.md).
@Suite struct MatrixDecoderTests {
    static let room = "!v73pvSetDteasFd3kTpGE8WOQ_10F39YkTerUExr3Jc"
    static let firstMessage = "$OiNDyDhZn9JEBTloK0FzXQKHGej-qy7wl1PRKraaxDU"

    @Test("a first /sync shows every kind of message, the edit, the redaction, receipts, typing and the anchor")
    func initialSync() throws {
        let sync = try MatrixDecoder.sync(try synapseAnswer("sync-initial.json"))
        #expect(sync.nextBatch.hasPrefix("s"))
        #expect(sync.invited.isEmpty && sync.left.isEmpty)
        let room = try #require(sync.joined.first)
        #expect(sync.joined.count == 1)
        #expect(room.id == (try MatrixRoomID(Self.room)))
        #expect(room.timeline.limited && room.timeline.previousBatch != nil)
        let events = room.timeline.events
        #expect(events.count == 10)
        #expect(events[0].content == .name("Dinner"))
        #expect(events[2].content == .member(membership: "join", displayName: "bob"))
        guard case .message(let hello) = events[3].content else { throw Failure("event 3 is \(events[3].content)") }
        #expect(hello.body == "hello bob" && hello.msgtype == "m.text")
        #expect(hello.clientMessageID == (try ClientMessageID("6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3")))
        #expect(events[3].eventID.rawValue == Self.firstMessage && events[3].sender.rawValue == "@alice:localhost")
        guard case .message(let emote) = events[4].content, case .message(let image) = events[6].content else {
            throw Failure("events 4 and 6 are \(events[4].content), \(events[6].content)")
        }
        #expect(emote.msgtype == "m.emote")
        #expect(image.msgtype == "m.image" && image.url == "mxc://localhost/abc")
        guard case .message(let edit) = events[7].content else { throw Failure("event 7 is \(events[7].content)") }
        #expect(edit.replaces?.rawValue == Self.firstMessage)
        #expect(edit.newContent == MatrixNewContent(body: "hello bob!"))
        #expect(events[7].transactionID == "edit1")
        #expect(events[8].content == .redacted && events[8].isRedacted)
        #expect(events[9].content == .redaction(redacts: events[8].eventID))
        #expect(room.ephemeral.contains(.typing([try MatrixUserID("@bob:localhost")])))
        let receipts = room.ephemeral.compactMap { event -> [MatrixReceipt]? in
            if case .receipts(let receipts) = event { return receipts }
            return nil
        }.flatMap { $0 }
        #expect(receipts.map(\.type) == ["m.read"] && receipts.map(\.user.rawValue) == ["@bob:localhost"])
        #expect(receipts.first?.timestamp != nil)
        let anchor = try #require(room.accountData.first { $0.type == MatrixAnchor.type })
        let decoded = try MatrixDecoder.anchor(JSONWriter.encode(anchor.content))
        #expect(decoded == MatrixAnchor(eventID: try MatrixEventID(Self.firstMessage), sequence: 5_000_000_000))
    }

    @Test(
        "an event in the federation format carries its depth and prev_events; out of range or too many, neither is kept and the event still decodes"
    )
    func federationFormat() throws {
        // The shape of Synapse 1.163.2's `/sync` with `"event_format":"federation"`.
        func event(_ place: String) throws -> MatrixEvent {
            try MatrixDecoder.event(
                Array(
                    #"{"auth_events":["$a1","$a2"],"content":{"body":"wake","msgtype":"m.text"},\#(place)"event_id":"$e","hashes":{"sha256":"x"},"origin_server_ts":1796602224290,"room_id":"!r:localhost","sender":"@erin:localhost","signatures":{"localhost":{"ed25519:a":"s"}},"type":"m.room.message","unsigned":{"age":1}}"#
                        .utf8))
        }
        let good = try event(#""depth":528,"prev_events":["$YfJYmDjREwMzmYfqYO2Q076ZrPRyingfY5hGoqgFi2c"],"#)
        #expect(good.depth == 528)
        #expect(good.previousEvents == [try MatrixEventID("$YfJYmDjREwMzmYfqYO2Q076ZrPRyingfY5hGoqgFi2c")])
        #expect(try event("").depth == nil)
        let tooMany = (0...MatrixLimits.previousEvents).map { "\"$p\($0)\"" }.joined(separator: ",")
        for place in [
            #""depth":9223372036854775807,"prev_events":["$p"],"#, #""depth":-1,"prev_events":["$p"],"#,
            #""depth":5,"prev_events":"$p","#, #""depth":5,"#, #""depth":5,"prev_events":[\#(tooMany)],"#,
        ] {
            let decoded = try event(place)
            #expect(decoded.depth == nil && decoded.previousEvents.isEmpty, "\(place)")
            #expect(decoded.eventID.rawValue == "$e")
        }
    }

    @Test("an encrypted room's m.room.encryption state is seen")
    func encryptedRoom() throws {
        let sync = try MatrixDecoder.sync(try synapseAnswer("sync-encrypted-room.json"))
        let encrypted = sync.joined.filter { room in
            room.state.contains { $0.content == .encryption(algorithm: "m.megolm.v1.aes-sha2") }
        }
        #expect(encrypted.map(\.id.rawValue) == ["!RuedeISLRwWFsguJ9T7h2Vqs5OfgrtoGp36ABiqiEWU"])
        #expect(sync.joined.count == 2)
    }

    @Test("an invite shows the room's stripped state")
    func invite() throws {
        let sync = try MatrixDecoder.sync(try synapseAnswer("sync-invite.json"))
        let invite = try #require(sync.invited.first)
        #expect(invite.inviteState.contains { $0.content == .member(membership: "invite", displayName: "bob") })
        #expect(invite.inviteState.contains { $0.type == "m.room.create" })
    }

    @Test("an incremental /sync holds the one new message")
    func incrementalSync() throws {
        let sync = try MatrixDecoder.sync(try synapseAnswer("sync-incremental.json"))
        let events = sync.joined.flatMap(\.timeline.events)
        #expect(events.count == 1 && !sync.joined[0].timeline.limited)
        guard case .message(let message) = events.first?.content else { throw Failure("no message") }
        #expect(message.body == "new one" && message.clientMessageID == nil)
    }

    @Test("/messages pages newest first; the page without end is the room's beginning")
    func messagePages() throws {
        let page = try MatrixDecoder.messages(try synapseAnswer("messages-b.json"))
        #expect(page.chunk.count == 5 && page.end != nil)
        #expect(page.chunk.map(\.originServerTimestamp) == page.chunk.map(\.originServerTimestamp).sorted(by: >))
        let beginning = try MatrixDecoder.messages(try synapseAnswer("messages-b-beginning.json"))
        #expect(beginning.chunk.isEmpty && beginning.end == nil)
        let forward = try MatrixDecoder.messages(try synapseAnswer("messages-f-all.json"))
        #expect(forward.chunk.first?.content == .create(roomVersion: "12", creationKey: nil))
    }

    @Test(
        "m.room.create carries chatdir's creation key when it is a string",
        arguments: [
            (#"{"room_version":"12","org.chatdir.creation":"ab12"}"#, "ab12"),
            (#"{"room_version":"12","org.chatdir.creation":7}"#, nil),
            (#"{"room_version":"12"}"#, nil),
        ] as [(String, String?)])
    func creationKey(content: String, key: String?) throws {
        let event = try MatrixDecoder.event(
            Array(
                (#"{"type":"m.room.create","state_key":"","event_id":"$c","sender":"@alice:example.org","origin_server_ts":1,"content":"#
                    + content + "}").utf8))
        #expect(event.content == .create(roomVersion: "12", creationKey: key))
    }

    @Test("/context gives the event with those around it")
    func context() throws {
        let context = try MatrixDecoder.context(try synapseAnswer("context.json"))
        #expect(context.event.content == .redacted)
        #expect(!context.eventsBefore.isEmpty && context.start != nil && context.end != nil)
    }

    @Test("the account answers: versions, login, refresh, whoami, joined rooms, create, join, send")
    func accountAnswers() throws {
        #expect(try MatrixDecoder.versions(try synapseAnswer("versions.json")).supports("v1.11"))
        let login = try MatrixDecoder.login(try synapseAnswer("login.json"))
        #expect(login.deviceID == "CHATDIRA" && login.userID.rawValue == "@alice:localhost")
        #expect(login.refreshToken == nil && login.expiresInMilliseconds == nil)
        let refreshing = try MatrixDecoder.login(try synapseAnswer("login-refresh.json"))
        #expect(refreshing.refreshToken != nil && refreshing.expiresInMilliseconds == 299_967)
        let refreshed = try MatrixDecoder.refresh(try synapseAnswer("refresh.json"))
        #expect(refreshed.accessToken.hasPrefix("syt_") && refreshed.refreshToken?.hasPrefix("syr_") == true)
        #expect(refreshed.expiresInMilliseconds == 2000)
        let whoami = try MatrixDecoder.whoami(try synapseAnswer("whoami.json"))
        #expect(whoami.deviceID == "CHATDIRA" && !whoami.isGuest)
        #expect(try MatrixDecoder.joinedRooms(try synapseAnswer("joined_rooms.json")).map(\.rawValue) == [Self.room])
        #expect(try MatrixDecoder.roomID(try synapseAnswer("createRoom.json")).rawValue == Self.room)
        #expect(try MatrixDecoder.roomID(try synapseAnswer("join.json")).rawValue == Self.room)
        #expect(try MatrixDecoder.eventID(try synapseAnswer("send.json")).rawValue == Self.firstMessage)
    }

    @Test(
        "the standard error bodies",
        arguments: [
            ("error-forbidden.json", "M_FORBIDDEN: Invalid username or password", false),
            ("error-too-large.json", "M_TOO_LARGE: event too large", false),
            ("error-unknown-token.json", "M_UNKNOWN_TOKEN: Invalid access token passed.", false),
            ("error-soft-logout.json", "M_UNKNOWN_TOKEN: Access token has expired", true),
        ])
    func errorBodies(file: String, summary: String, softLogout: Bool) throws {
        let error = try MatrixDecoder.errorBody(try synapseAnswer(file))
        #expect(error.summary == summary && error.softLogout == softLogout)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
