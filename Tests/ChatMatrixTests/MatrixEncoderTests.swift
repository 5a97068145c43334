import ChatDomain
import Testing

@testable import ChatMatrix

/// The request bodies, byte for byte, and the content that decodes back to what was encoded.
@Suite struct MatrixEncoderTests {
    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test("login with a fixed device ID, and with refresh tokens")
    func login() {
        #expect(
            Self.text(MatrixEncoder.passwordLogin(user: "alice", password: "p\"w", deviceID: "CHATDIRA"))
                == #"{"type":"m.login.password","identifier":{"type":"m.id.user","user":"alice"},"password":"p\"w","device_id":"CHATDIRA"}"#
        )
        #expect(
            Self.text(
                MatrixEncoder.passwordLogin(
                    user: "a", password: "p", deviceID: "D", deviceName: "chatdir", refreshToken: true)
            )
            .hasSuffix(#""device_id":"D","initial_device_display_name":"chatdir","refresh_token":true}"#))
    }

    @Test("refresh sends the refresh token, logout an empty object")
    func refreshAndLogout() {
        #expect(Self.text(MatrixEncoder.refresh("syr_a\"b")) == #"{"refresh_token":"syr_a\"b"}"#)
        #expect(Self.text(MatrixEncoder.logout()) == "{}")
    }

    @Test("message content carries the client message ID and decodes to the same value")
    func messageRoundTrip() throws {
        let original = try MatrixEventID("$orig")
        let contents = [
            MatrixMessageContent(
                body: "on my way", clientMessageID: try ClientMessageID("6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3")),
            MatrixMessageContent(msgtype: "m.emote", body: "waves \u{1F44B}\n"),
            MatrixMessageContent(msgtype: "m.image", body: "cat.png", url: "mxc://example.org/abc"),
            MatrixMessageContent(
                body: "* fixed", relation: .replacing(original), newContent: MatrixNewContent(body: "fixed")),
            MatrixMessageContent(body: "> quote\n\nreply", relation: MatrixRelation(inReplyTo: original)),
        ]
        for content in contents {
            let bytes = MatrixEncoder.messageContent(content)
            #expect(try MatrixDecoder.messageContent(bytes) == content)
        }
        #expect(
            Self.text(MatrixEncoder.messageContent(contents[0]))
                == #"{"msgtype":"m.text","body":"on my way","org.chatdir.cmid":"6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3"}"#
        )
        #expect(contents[3].replaces == original && contents[4].replaces == nil)
    }

    @Test("receipt, typing, createRoom and the anchor")
    func others() throws {
        #expect(Self.text(MatrixEncoder.receipt()) == "{}")
        #expect(Self.text(MatrixEncoder.typing(true, timeoutMilliseconds: 5000)) == #"{"typing":true,"timeout":5000}"#)
        #expect(Self.text(MatrixEncoder.typing(false)) == #"{"typing":false}"#)
        #expect(
            Self.text(MatrixEncoder.createRoom(name: "Dinner", invite: [try MatrixUserID("@bob:example.org")]))
                == #"{"preset":"private_chat","name":"Dinner","invite":["@bob:example.org"]}"#)
        #expect(
            Self.text(MatrixEncoder.createRoom(name: "Lunch", invite: [], creationKey: "0123abcd"))
                == #"{"preset":"private_chat","name":"Lunch","creation_content":{"org.chatdir.creation":"0123abcd"}}"#)
        #expect(
            Self.text(MatrixEncoder.invite(try MatrixUserID("@bob:example.org"))) == #"{"user_id":"@bob:example.org"}"#)
        let anchor = MatrixAnchor(eventID: try MatrixEventID("$a"), sequence: 5_000_000_000)
        #expect(Self.text(MatrixEncoder.anchor(anchor)) == #"{"event_id":"$a","sequence":5000000000}"#)
        #expect(try MatrixDecoder.anchor(MatrixEncoder.anchor(anchor)) == anchor)
    }
}
