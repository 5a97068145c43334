import ChatDomain
import ChatProtocol
import ChatStore
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatSync

/// A one-pass sync of a protocol numbered from anchors (Matrix), whose conversations are never
/// grouped into shared commits: several conversations are synced at once, at most
/// ``SyncEngine/Options/conversationsInFlight``, each stored whole, and a refused token still
/// ends the pass without beginning any more of them.
@Suite(.ownThreads) struct ConversationsInFlightTests {
    /// A server of `rooms` conversations "r0", "r1", … each holding `messages` messages from bob,
    /// reached through the seam as a Matrix session is.
    final class Rooms: Sendable {
        struct State: Sendable {
            var inFlight = 0
            var mostInFlight = 0
            /// Conversations whose history was asked for, in the order asked.
            var asked: [ConversationID] = []
            var refused = false
        }

        let ids: [ConversationID]
        let messages: Int
        /// The first requests of this many rooms wait (30 s at most) until they are all in flight at once.
        let gate: Int
        /// The conversation whose history request is answered 401.
        let refusing: ConversationID?
        /// A pthread lock (``Lock``), not `Mutex`: ThreadSanitizer cannot see `Mutex`'s hand-over
        /// when it is contended, as it is here.
        let state = Lock(State())

        init(rooms: Int, messages: Int, gate: Int, refusing: Int? = nil) throws {
            let ids = try (0..<rooms).map { try ConversationID("r\($0)") }
            self.ids = ids
            self.messages = messages
            self.gate = gate
            self.refusing = refusing.map { ids[$0] }
        }

        func history(_ id: ConversationID) throws -> [Message] {
            let bob = try UserID("bob")
            return (1...messages).map { sequence in
                Message(
                    sequence: sequence, clientMessageID: .random(), senderID: bob, text: "\(id) says \(sequence)",
                    sentAt: "2026-12-06T10:00:00.000Z")
            }
        }

        /// Waits until `ready` holds, for 30 s at most.
        func wait(until ready: @Sendable (State) -> Bool) async {
            let end = ContinuousClock.now + .seconds(30)
            while !state.withLock({ ready($0) }), ContinuousClock.now < end {
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
    }

    struct RoomsSession: ServerSession {
        let rooms: Rooms
        let histories: [ConversationID: [Message]]
        var passDeadline: PassDeadline?

        init(_ rooms: Rooms) throws {
            self.rooms = rooms
            histories = Dictionary(uniqueKeysWithValues: try rooms.ids.map { ($0, try rooms.history($0)) })
        }

        var server: ServerAddress { ServerAddress(host: "127.0.0.1", port: 9) }
        var capabilities: ServerCapabilities {
            ServerCapabilities(
                deliveredPositions: false, positionsOnRequest: true, anchoredNumbering: true,
                remembersClientMessageIDs: false)
        }

        func me() async throws(SyncError) -> UserID { try! UserID("alice") }

        func conversations() async throws(SyncError) -> [ServerConversation] {
            rooms.ids.map { id in
                ServerConversation(
                    id: id, title: "Room \(id)", members: [try! UserID("alice"), try! UserID("bob")],
                    head: rooms.messages)
            }
        }

        func messages(_ id: ConversationID, _ page: HistoryPage, limit: Int) async throws(SyncError) -> MessagesPage {
            let first = rooms.state.withLock { state in
                let first = !state.asked.contains(id)
                if first { state.asked.append(id) }
                state.inFlight += 1
                state.mostInFlight = max(state.mostInFlight, state.inFlight)
                return first
            }
            defer { rooms.state.withLock { $0.inFlight -= 1 } }
            if id == rooms.refusing {
                rooms.state.withLock { $0.refused = true }
                throw .unauthorized("401: the token was revoked")
            }
            if first, rooms.refusing != nil {
                // Every other conversation answers only after the refusal: none is begun after it.
                await rooms.wait { $0.refused }
            } else if first, let index = rooms.ids.firstIndex(of: id), index < rooms.gate {
                let gate = rooms.gate
                await rooms.wait { $0.mostInFlight >= gate }
            }
            let history = histories[id] ?? []
            guard case .after(let sequence) = page else { return MessagesPage(items: [], hasMore: false) }
            let items = history.filter { $0.sequence > sequence }
            return MessagesPage(items: Array(items.prefix(limit)), hasMore: items.count > limit)
        }

        func deliver(_ id: ConversationID, clientMessageID: ClientMessageID, text: String) async throws(SyncError)
            -> Delivery
        { throw .rejected(status: 422, message: "nothing is sent in this test") }

        func positions(_ id: ConversationID) async throws(SyncError) -> Positions { Positions() }
        func postRead(_ id: ConversationID, upTo sequence: Int) async throws(SyncError) -> Int { sequence }
        func postDelivered(_ id: ConversationID, upTo sequence: Int) async throws(SyncError) -> Int { sequence }
        func typing(_ id: ConversationID) async throws(SyncError) {}
        func startConversation(_ conversation: NewConversation, key: String) async throws(SyncError)
            -> ServerConversation?
        { nil }
        func liveUpdates(limit: Int) -> AsyncStream<[LiveUpdate]> { AsyncStream { $0.finish() } }
        func renewing(token: String) -> RoomsSession { self }
    }

    /// Alice's fresh store and an engine on `rooms` taking `width` conversations at once.
    struct Device {
        let directory: TemporaryDirectory
        let store: Store
        let engine: SyncEngine

        init(_ rooms: Rooms, width: Int, pageSize: Int? = nil) throws {
            directory = try TemporaryDirectory()
            store = try clientStore("alice", in: directory)
            var options = fastOptions
            options.conversationsInFlight = width
            if let pageSize { options.pageSize = pageSize }
            engine = try SyncEngine(store: store, session: try RoomsSession(rooms), token: "t", options: options)
        }
    }

    @Test("rooms are synced several at once, never more than the setting, each stored whole")
    func severalAtOnce() async throws {
        let rooms = try Rooms(rooms: 7, messages: 12, gate: 3)
        let device = try Device(rooms, width: 3, pageSize: 5)
        let store = device.store

        let report = await device.engine.syncOnce()
        #expect(report.outcome == .complete, "\(report)")
        #expect(report.conversations == 7)
        #expect(report.newMessages == 7 * 12)
        // The first three waited for each other: without rooms in flight at once the pass
        // would have had one request out at a time.
        #expect(rooms.state.withLock { $0.mostInFlight } == 3)
        for id in rooms.ids {
            #expect(try storedMessages(store, id.rawValue).map(\.text) == (1...12).map { "\(id) says \($0)" })
            #expect(try store.conversation(id).info()?.title == "Room \(id)")
        }
    }

    @Test("a token refused in one room ends the pass: the rooms in flight finish, no other begins")
    func refusedTokenEndsThePass() async throws {
        let rooms = try Rooms(rooms: 6, messages: 4, gate: 1, refusing: 1)
        let device = try Device(rooms, width: 2)
        let store = device.store

        let report = await device.engine.syncOnce()
        #expect(report.outcome == .tokenRefused, "\(report)")
        #expect(report.problems.contains { $0.contains("the token was revoked") }, "\(report.problems)")
        // r0 was in flight beside r1 and finished; r2… were never asked for.
        #expect(Set(rooms.state.withLock { $0.asked }) == [rooms.ids[0], rooms.ids[1]])
        #expect(try storedMessages(store, "r0").count == 4)
        #expect(try storedMessages(store, "r2").isEmpty)
    }

    @Test("the live worker's catch-up after connecting takes rooms several at once too, and stops at a refused token")
    func liveCatchUp() async throws {
        let rooms = try Rooms(rooms: 5, messages: 6, gate: 2)
        let device = try Device(rooms, width: 2)
        try await device.engine.catchUpEverything()
        #expect(rooms.state.withLock { $0.mostInFlight } == 2)
        for id in rooms.ids {
            #expect(try storedMessages(device.store, id.rawValue).map(\.text) == (1...6).map { "\(id) says \($0)" })
        }

        let refusing = try Rooms(rooms: 5, messages: 3, gate: 1, refusing: 1)
        let refused = try Device(refusing, width: 2)
        await #expect(throws: SyncError.unauthorized("401: the token was revoked")) {
            try await refused.engine.catchUpEverything()
        }
        #expect(Set(refusing.state.withLock { $0.asked }) == [refusing.ids[0], refusing.ids[1]])
    }
}
