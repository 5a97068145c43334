import ChatDomain
import ChatProtocol
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatSync

/// The bounded queue between the live reader thread and the worker (LiveConnection.Inbox): a
/// server that sends faster than the store saves is held at the socket, not in memory.
@Suite(.ownThreads) struct LiveInboxTests {
    typealias Event = LiveConnection.Event

    /// Pushes `events` one by one on a thread of its own, as the reader thread does; `pushed`
    /// counts the pushes that returned.
    static func pushInBackground(_ inbox: LiveConnection.Inbox, _ events: [Event]) -> Lock<Int> {
        let pushed = Lock(0)
        Thread.detachNewThread {
            for event in events {
                inbox.push(event)
                pushed.withLock { $0 += 1 }
            }
        }
        return pushed
    }

    static func message(_ sequence: Int, bytes: Int) throws -> Event {
        let message = Message(
            sequence: sequence, clientMessageID: .random(), senderID: try UserID("bob"),
            text: String(repeating: "x", count: bytes), sentAt: "2026-11-29T10:00:00.000Z")
        return .event(.message(try ConversationID("ab"), message))
    }

    @Test("a full inbox holds the reader until the worker takes a batch; every event arrives once, in order")
    func holdsTheReader() async throws {
        let inbox = LiveConnection.Inbox(limit: 10, byteLimit: 1 << 20, capacity: 50)
        let events = (0..<500).map { Event.ignored("\($0)") }
        let pushed = Self.pushInBackground(inbox, events)
        // Held: nothing is taken, so the 51st push waits for room instead of returning.
        try await waitUntil("the reader waits for room") { inbox.isHoldingThePusher }
        #expect(pushed.withLock { $0 } == 50)
        var received: [Event] = []
        while received.count < events.count, let batch = await inbox.next() {
            #expect(batch.count <= 10)
            received += batch
        }
        #expect(received == events)
        try await waitUntil("every push returned") { pushed.withLock { $0 } == 500 }
    }

    @Test("message text counts too: past the byte capacity the reader waits, but one long message always goes in")
    func byteCapacity() async throws {
        let inbox = LiveConnection.Inbox(limit: 100, byteLimit: 1 << 20, capacity: 1000, byteCapacity: 1000)
        let events = [
            try Self.message(1, bytes: 2000), try Self.message(2, bytes: 600), try Self.message(3, bytes: 600),
        ]
        let pushed = Self.pushInBackground(inbox, events)
        // The first is larger than the whole capacity and still goes in (the queue was empty);
        // the second waits for it to be taken.
        try await waitUntil("the second message waits for room") { inbox.isHoldingThePusher }
        #expect(pushed.withLock { $0 } == 1)
        #expect(await inbox.next() == [events[0]])
        // 600 fits, then 600 more would pass 1,000: the third waits for the second.
        try await waitUntil("the third message waits for room") {
            inbox.isHoldingThePusher && pushed.withLock { $0 } == 2
        }
        #expect(pushed.withLock { $0 } == 2)
        #expect(await inbox.next() == [events[1]])
        try await waitUntil("the third message is queued") { pushed.withLock { $0 } == 3 }
        #expect(await inbox.next() == [events[2]])
    }

    @Test("a worker that goes away lets a waiting reader go, and what comes after is dropped")
    func stopReleasesTheReader() async throws {
        let inbox = LiveConnection.Inbox(limit: 10, byteLimit: 1 << 20, capacity: 5)
        let pushed = Self.pushInBackground(inbox, (0..<100).map { Event.ignored("\($0)") })
        try await waitUntil("the inbox is full") { pushed.withLock { $0 } == 5 }
        inbox.stop()
        try await waitUntil("the reader thread is free") { pushed.withLock { $0 } == 100 }
        #expect(await inbox.next()?.count == 5, "what was queued before the stop is still there")
    }
}
