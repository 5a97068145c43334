import ChatDomain
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatStore

/// Queue order is the order of `send` and `retry`, whatever the clock says.
@Suite(.ownThreads) struct OutboxOrderTests {
    static let noon: UInt64 = 1_764_417_600_000_000_000 // 2025-11-29T12:00:00Z
    static let hour: UInt64 = 3_600_000_000_000

    func outbox(in directory: TemporaryDirectory) throws -> (Store, (UInt64) -> Outbox) {
        let store = try makeStore(in: directory)
        try StoreWriter(store: store).saveInfo(ConversationInfo(title: "T", members: [alice, bob]), for: c1)
        return (store, { now in Outbox(store.conversation(c1), clock: { now }) })
    }

    @Test("a message sent after the clock was stepped back an hour is queued after the one before")
    func clockSteppedBack() throws {
        let directory = try TemporaryDirectory()
        let (store, at) = try outbox(in: directory)
        let a = try at(Self.noon).enqueue("A")
        let b = try at(Self.noon - Self.hour).enqueue("B")
        #expect(b.ordinal == a.ordinal + 1)
        #expect(try store.conversation(c1).outbox().map(\.text) == ["A", "B"])
        #expect(
            b.createdAt == Clock.iso8601(nanoseconds: Self.noon - Self.hour), "createdAt still says what the clock said"
        )
    }

    @Test("a retry after the clock was stepped back goes to the back of the queue")
    func retrySteppedBack() throws {
        let directory = try TemporaryDirectory()
        let (store, at) = try outbox(in: directory)
        let a = try at(Self.noon).enqueue("A")
        try at(Self.noon + 1).enqueue("B")
        try StoreWriter(store: store).markFailed(a.clientMessageID, reason: "no", in: c1)
        let outcome = try at(Self.noon - Self.hour).requeue(a.clientMessageID)
        #expect(!outcome.alreadyPending)
        #expect(try store.conversation(c1).outbox().map(\.text) == ["B", "A"])
        #expect(try at(Self.noon).requeue(a.clientMessageID).alreadyPending, "a second retry changes nothing")
    }

    @Test(
        "a clock before 1970 counts as 1970: no crash, and ordinals keep growing",
        arguments: [
            (Int64(-3600), Int64(0), UInt64(0)), (Int64(-1), Int64(999_999_999), UInt64(0)),
            (Int64(0), Int64(5), UInt64(5)),
            (Int64(1_764_417_600), Int64(7), UInt64(1_764_417_600_000_000_007)),
        ])
    func before1970(seconds: Int64, nanoseconds: Int64, expected: UInt64) throws {
        #expect(Clock.nanosecondsSince1970(seconds: seconds, nanoseconds: nanoseconds) == expected)
        let directory = try TemporaryDirectory()
        let (store, at) = try outbox(in: directory)
        try at(Self.noon).enqueue("now")
        try at(Clock.nanosecondsSince1970(seconds: seconds, nanoseconds: nanoseconds)).enqueue("then")
        #expect(try store.conversation(c1).outbox().map(\.text) == ["now", "then"])
    }
}
