import ChatDomain
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatStore

/// A sender that remembers the newest ordinal (``OutboxMemory``) queues exactly as one that
/// lists `outbox/` every time: each `OutboxMemory` here stands for one process, and everything
/// another process (or a person, or the worker) does to the directory is seen by the next send.
@Suite(.ownThreads) struct OutboxMemoryTests {
    static let noon: UInt64 = 1_764_417_600_000_000_000 // 2025-11-29T12:00:00Z
    static let hour: UInt64 = 3_600_000_000_000

    /// A store with c1, and its outbox directory (made by the first send).
    struct Fixture {
        let store: Store
        let directory: TemporaryDirectory
        var conversation: Conversation { store.conversation(c1) }
        var outboxDirectory: String { conversation.outboxDirectory }

        init() throws {
            directory = try TemporaryDirectory()
            store = try makeStore(in: directory)
            try StoreWriter(store: store).saveInfo(ConversationInfo(title: "T", members: [alice, bob]), for: c1)
        }

        /// The outbox as a process with `memory` sees it, its clock reading `now`.
        func sender(_ memory: OutboxMemory, at now: UInt64) -> Outbox {
            Outbox(conversation, clock: { now }, memory: memory)
        }

        /// What a sender that lists gives for a send at `now`: one past the newest file, or `now`.
        func listedOrdinal(at now: UInt64) throws -> UInt64 {
            let newest = try conversation.outbox().map(\.ordinal).max()
            return max(now, newest.map { $0 + 1 } ?? 0)
        }

        /// Waits until a change made now to the file system gets a later ctime than `outbox/` has:
        /// on a kernel whose timestamps are coarse (before 6.13), a change in the same tick as
        /// the last send could leave the directory's stamp as it was (docs/ARCHITECTURE.md).
        /// Probes with a scratch directory beside the store, never a fixed sleep.
        func waitForTheClockToPassTheOutbox(sourceLocation: SourceLocation = #_sourceLocation) throws {
            let scratch = directory.file("tick")
            try DurableFile.makeDirectories(scratch)
            let outboxChanged = try #require(
                Sys.changeStamp(of: outboxDirectory)?.changed, sourceLocation: sourceLocation)
            try waitForFileSystemClock(past: outboxChanged, probing: scratch, sourceLocation: sourceLocation)
        }

        /// Queues `text` at `ordinal` as something other than a sender would: by hand, or a checkout.
        func writeByHand(_ text: String, ordinal: UInt64) throws -> ClientMessageID {
            let id = ClientMessageID.random()
            let entry = OutboxEntry(
                ordinal: ordinal, clientMessageID: id, text: text, createdAt: Clock.iso8601(nanoseconds: ordinal))
            try DurableFile.create(
                OutboxFile.encode(entry), as: OutboxFile.fileName(ordinal: ordinal, id: id), in: outboxDirectory)
            return id
        }
    }

    @Test(
        "two processes taking turns, their clocks stepped back and forth, queue oldest first, each new ordinal past every queued one, as senders that list would"
    )
    func twoProcessesSteppedClocks() throws {
        let fixture = try Fixture()
        let memories = [OutboxMemory(), OutboxMemory()]
        // (which process, its clock): runs of one process use what it remembers; a turn of the
        // other, or a clock at or behind the newest, makes it list.
        let script: [(Int, UInt64)] = [
            (0, Self.noon), (0, Self.noon + 10), (0, Self.noon + 20), (0, Self.noon + 30),
            (1, Self.noon + 5), (1, Self.noon + 100), (1, Self.noon + 101),
            (0, Self.noon + 40), (0, Self.noon + 200), (0, Self.noon - Self.hour), (0, Self.noon - Self.hour + 1),
            (1, Self.noon + Self.hour), (1, Self.noon + Self.hour + 1),
            (0, Self.noon + 300), (0, Self.noon + Self.hour + 2), (0, Self.noon + Self.hour + 50),
            (0, Self.noon + Self.hour + 60),
            (1, Self.noon + Self.hour + 55), (0, Self.noon + Self.hour + 70),
        ]
        var sent: [String] = []
        var previous: Int?
        for (step, (process, now)) in script.enumerated() {
            if let previous, previous != process { try fixture.waitForTheClockToPassTheOutbox() }
            previous = process
            let expected = try fixture.listedOrdinal(at: now)
            let text = "step \(step) by \(process)"
            let entry = try fixture.sender(memories[process], at: now).enqueue(text)
            sent.append(text)
            #expect(entry.ordinal == expected, "step \(step): ordinal \(entry.ordinal), a listing gives \(expected)")
            #expect(try fixture.conversation.outbox().map(\.text) == sent, "step \(step): not in send order")
        }
        #expect(
            memories[0].trustedCount >= 5 && memories[1].trustedCount >= 1,
            "the remembered ordinal was used \(memories.map(\.trustedCount)) times")
    }

    @Test(
        "a real chatdir send between two sends of this process, its ordinal ahead of this process's clock, is queued before the next one"
    )
    func realSecondProcess() throws {
        let fixture = try Fixture()
        let memory = OutboxMemory()
        // This process's clock is a year behind the real one the other process reads.
        let behind = Clock.nanosecondsSince1970() - 365 * 24 * Self.hour
        try fixture.sender(memory, at: behind).enqueue("mine 0")
        try fixture.sender(memory, at: behind + 1).enqueue("mine 1")
        try fixture.sender(memory, at: behind + 2).enqueue("mine 2")
        #expect(memory.trustedCount == 1)
        try fixture.waitForTheClockToPassTheOutbox()
        let other = try ChatdirProcess.run(["send", "--store", fixture.store.root, "c1", "from another process"])
        #expect(other.status == 0, "\(other.stderr)")
        let theirs = try #require(try fixture.conversation.outbox().last)
        #expect(theirs.text == "from another process" && theirs.ordinal > behind + 3)
        let entry = try fixture.sender(memory, at: behind + 3).enqueue("mine 3")
        #expect(entry.ordinal == theirs.ordinal + 1)
        #expect(
            try fixture.conversation.outbox().map(\.text) == [
                "mine 0", "mine 1", "mine 2", "from another process", "mine 3",
            ])
    }

    @Test(
        "a file written by hand with an ordinal ahead of the clock is seen by the next send of a process that remembered"
    )
    func fileAppearsBehindItsBack() throws {
        let fixture = try Fixture()
        let memory = OutboxMemory()
        for step in 0..<3 { try fixture.sender(memory, at: Self.noon + UInt64(step)).enqueue("mine \(step)") }
        #expect(memory.trustedCount == 1, "the third send used what the second remembered")
        try fixture.waitForTheClockToPassTheOutbox()
        _ = try fixture.writeByHand("by hand", ordinal: Self.noon + Self.hour)
        let entry = try fixture.sender(memory, at: Self.noon + 3).enqueue("after")
        #expect(entry.ordinal == Self.noon + Self.hour + 1)
        #expect(try fixture.conversation.outbox().map(\.text) == ["mine 0", "mine 1", "mine 2", "by hand", "after"])
        #expect(memory.trustedCount == 1, "the changed directory was listed")
        let next = try fixture.sender(memory, at: Self.noon + 4).enqueue("after that")
        #expect(next.ordinal == Self.noon + Self.hour + 2, "the newest seen by the listing is what is remembered")
    }

    @Test("a file removed behind its back (the worker stored the message) gives the ordinal a listing gives")
    func fileDisappearsBehindItsBack() throws {
        let fixture = try Fixture()
        let memory = OutboxMemory()
        let first = try fixture.sender(memory, at: Self.noon).enqueue("first")
        let second = try fixture.sender(memory, at: Self.noon + Self.hour).enqueue("second")
        try fixture.waitForTheClockToPassTheOutbox()
        try DurableFile.remove(
            OutboxFile.fileName(ordinal: second.ordinal, id: second.clientMessageID), in: fixture.outboxDirectory)
        for now in [Self.noon + 1, Self.noon + Self.hour, Self.noon + 2 * Self.hour] {
            let expected = try fixture.listedOrdinal(at: now)
            let entry = try fixture.sender(memory, at: now).enqueue("at \(now)")
            #expect(entry.ordinal == expected, "at \(now): \(entry.ordinal), a listing gives \(expected)")
        }
        #expect(
            try fixture.conversation.outbox().map(\.text) == [
                "first", "at \(Self.noon + 1)", "at \(Self.noon + Self.hour)", "at \(Self.noon + 2 * Self.hour)",
            ])
        #expect(first.ordinal == Self.noon)
    }

    @Test("a retry by another process, moving a message past this process's clock, is seen; so is one by this process")
    func retriesAreSeen() throws {
        let fixture = try Fixture()
        let memory = OutboxMemory()
        let refused = try fixture.sender(memory, at: Self.noon).enqueue("refused")
        try fixture.sender(memory, at: Self.noon + 1).enqueue("later")
        try StoreWriter(store: fixture.store).markFailed(refused.clientMessageID, reason: "422 test", in: c1)
        try fixture.waitForTheClockToPassTheOutbox()
        let retried = try fixture.sender(OutboxMemory(), at: Self.noon + Self.hour).retry(refused.clientMessageID)
        #expect(retried.ordinal == Self.noon + Self.hour)
        let entry = try fixture.sender(memory, at: Self.noon + 2).enqueue("after the retry")
        #expect(entry.ordinal == Self.noon + Self.hour + 1)
        #expect(try fixture.conversation.outbox().map(\.text) == ["later", "refused", "after the retry"])

        // This process's own retry, in the same tick as its send if the clock is coarse.
        try StoreWriter(store: fixture.store).markFailed(refused.clientMessageID, reason: "422 test", in: c1)
        let own = try fixture.sender(memory, at: Self.noon + 2 * Self.hour).retry(refused.clientMessageID)
        let last = try fixture.sender(memory, at: Self.noon + 3).enqueue("after my retry")
        #expect(last.ordinal == own.ordinal + 1)
        #expect(
            try fixture.conversation.outbox().map(\.text) == ["later", "after the retry", "refused", "after my retry"])
    }

    @Test("an outbox replaced by another directory (a checkout, a restore) is listed, not trusted")
    func outboxReplaced() throws {
        let fixture = try Fixture()
        let memory = OutboxMemory()
        for step in 0..<3 { try fixture.sender(memory, at: Self.noon + UInt64(step)).enqueue("mine \(step)") }
        try fixture.waitForTheClockToPassTheOutbox()
        try Sys.rename(fixture.outboxDirectory, fixture.conversation.directory + "/outbox-old")
        try Sys.mkdir(fixture.outboxDirectory)
        _ = try fixture.writeByHand("restored", ordinal: Self.noon + Self.hour)
        let entry = try fixture.sender(memory, at: Self.noon + 3).enqueue("after")
        #expect(entry.ordinal == Self.noon + Self.hour + 1)
        #expect(try fixture.conversation.outbox().map(\.text) == ["restored", "after"])
    }

    @Test("a failed send forgets what was remembered, and the next send lists")
    func failedSendForgets() throws {
        let fixture = try Fixture()
        let memory = OutboxMemory()
        try fixture.sender(memory, at: Self.noon).enqueue("one")
        try fixture.sender(memory, at: Self.noon + 1).enqueue("two")
        #expect(memory.entry(for: fixture.outboxDirectory)?.stamp != nil)
        FaultInjection.inject([.link], under: fixture.outboxDirectory, failAt: 1, errno: .noSpace)
        #expect(throws: StoreError.self) { try fixture.sender(memory, at: Self.noon + 2).enqueue("doomed") }
        FaultInjection.clear(fixture.outboxDirectory)
        #expect(memory.entry(for: fixture.outboxDirectory) == nil)
        let entry = try fixture.sender(memory, at: Self.noon + 2).enqueue("three")
        #expect(entry.ordinal == Self.noon + 2)
        #expect(try fixture.conversation.outbox().map(\.text) == ["one", "two", "three"])
    }

    @Test(
        "what is remembered is trusted only with the same stamp, a clock past the remembered ordinal and a wall clock not stepped back",
        arguments: [
            // (same stamp, now - newest, offset now - offset then, trusted)
            (true, Int64(1), Int64(0), true), (true, Int64(1_000), Int64(5), true),
            (false, Int64(1), Int64(0), false), (true, Int64(0), Int64(0), false), (true, Int64(-1), Int64(0), false),
            (true, Int64(1), -OutboxMemory.clockOffsetTolerance, true),
            (true, Int64(1), -OutboxMemory.clockOffsetTolerance - 1, false),
            (true, Int64(1), Int64(-3_600_000_000_000), false),
        ])
    func trustRule(sameStamp: Bool, ahead: Int64, offsetMoved: Int64, trusted: Bool) throws {
        let stamps = try FileChangeStampFixture.two()
        let newest = Self.noon
        let entry = OutboxMemory.Entry(stamp: stamps.0, newest: newest, clockOffset: 1_000)
        let now = UInt64(Int64(newest) + ahead)
        #expect(
            OutboxMemory.trusts(
                entry, stamp: sameStamp ? stamps.0 : stamps.1, now: now, clockOffset: 1_000 + offsetMoved) == trusted)
    }

    @Test("a process remembers at most a bounded number of outboxes")
    func bounded() throws {
        let memory = OutboxMemory()
        for index in 0..<(OutboxMemory.limit * 3) {
            memory.remember(
                OutboxMemory.Entry(stamp: nil, newest: UInt64(index), clockOffset: 0), for: "/outbox/\(index)")
        }
        let remembered = (0..<(OutboxMemory.limit * 3)).filter { memory.entry(for: "/outbox/\($0)") != nil }.count
        #expect(remembered <= OutboxMemory.limit && remembered > 0)
        #expect(
            memory.entry(for: "/outbox/\(OutboxMemory.limit * 3 - 1)")?.newest == UInt64(OutboxMemory.limit * 3 - 1))
    }
}

/// Two different stamps, from two real directories (a stamp has no public initializer).
enum FileChangeStampFixture {
    static func two() throws -> (FileChangeStamp, FileChangeStamp) {
        let directory = try TemporaryDirectory()
        try Sys.mkdir(directory.file("a"))
        try Sys.mkdir(directory.file("b"))
        let a = try #require(Sys.changeStamp(of: directory.file("a")))
        let b = try #require(Sys.changeStamp(of: directory.file("b")))
        #expect(a != b)
        return (a, b)
    }
}
