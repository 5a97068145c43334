import ChatDomain
import ChatWire
import Foundation
import Testing

@testable import ChatSync

/// The live connection over scripted byte streams: the upgrade's answer read by the same head
/// loop and classified by the same ``ResponseVerdict`` as every API answer.
@Suite struct LiveConnectionTests {
    static let server = ServerAddress(host: "chat.example", port: 8080)

    /// The 101 a server answers `written` (the client's upgrade request) with, then `frames`.
    static func upgrade(then texts: [String]) -> @Sendable ([UInt8]) -> [UInt8] {
        { written in
            let request = String(decoding: written, as: UTF8.self)
            let key =
                request.split(separator: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-key:") }?
                .split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            let head =
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(WebSocketHandshake.acceptValue(forKey: key))\r\n\r\n"
            let socket = WebSocketConnection(role: .server)
            return Array(head.utf8) + texts.flatMap { socket.text($0) }
        }
    }

    /// The first `count` events of one live connection over `stream`.
    static func events(_ stream: ScriptedStream, count: Int) async -> [LiveConnection.Event] {
        var live = LiveConnection(server: server, token: "t", connectTimeout: .seconds(20))
        live.connector = ScriptedConnector([stream]).connector
        var events: [LiveConnection.Event] = []
        receiving: for await batch in live.batches() {
            for event in batch {
                events.append(event)
                if events.count == count { break receiving }
            }
        }
        return events
    }

    @Test("an upgrade and an event trickled one byte per read still arrive")
    func trickle() async throws {
        let receipt = #"{"type":"receipt","conversationId":"c1","userId":"bob","deliveredUpTo":3,"readUpTo":2}"#
        let stream = ScriptedStream([.answer(trickle: true, Self.upgrade(then: [receipt])), .stall])
        let events = await Self.events(stream, count: 2)
        #expect(
            events == [
                .connected,
                .event(
                    .receipt(try ConversationID("c1"), try UserID("bob"), MemberPosition(deliveredUpTo: 3, readUpTo: 2))
                ),
            ])
        #expect(stream.written.hasPrefix("GET /v1/live HTTP/1.1\r\n"))
    }

    @Test("401 to the upgrade ends the connection as unauthorized")
    func unauthorized() async {
        let stream = ScriptedStream([.bytes(Array(String.answer(401, #"{"error":"unknown token"}"#).utf8))])
        #expect(
            await Self.events(stream, count: 1) == [
                .disconnected(.unauthorized("401: the live connection was refused"))
            ])
    }

    @Test("503 to the upgrade is temporary, with its Retry-After clamped like any answer's")
    func temporaryWithRetryAfter() async {
        let stream = ScriptedStream([.bytes(Array(String.answer(503, "{}", headers: ["Retry-After: 999999999"]).utf8))])
        #expect(
            await Self.events(stream, count: 1) == [
                .disconnected(.temporary("the live connection was refused with 503", retryAfter: .seconds(3600)))
            ])
    }

    @Test("a stream reset during the upgrade is a transport failure")
    func resetDuringUpgrade() async {
        let stream = ScriptedStream([.bytes(Array("HTTP/1.1 101 Swi".utf8)), .reset])
        #expect(await Self.events(stream, count: 1) == [.disconnected(.transport(ScriptedStream.resetError))])
    }

    @Test("a stream that closes during the upgrade says so in the words it had before the seam")
    func closedDuringUpgrade() async {
        let stream = ScriptedStream([.bytes(Array("HTTP/1.1 101 Swi".utf8))])
        let closed = SyncError.transport(TransportError(.closed, "the server closed the connection during the upgrade"))
        #expect(await Self.events(stream, count: 1) == [.disconnected(closed)])
        #expect(closed.description == "server unavailable: the server closed the connection during the upgrade")
    }
}
