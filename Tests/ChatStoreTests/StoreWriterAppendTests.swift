import ChatDomain
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatStore

/// Appends one message at a time (what the live worker does) against the same messages saved
/// in one batch: the segment files must be byte-identical whichever way they were written.
@Suite(.ownThreads) struct StoreWriterAppendTests {
    @Test(
        "250 messages saved one at a time give the same bytes as one batch: the first record of a segment, the 100th of a full one, and every one between"
    )
    func oneAtATime() throws {
        let directory = try TemporaryDirectory()
        let messages = (1...250).map { message($0, $0 % 3 == 0 ? alice : bob) }
        let batch = try makeStore(in: directory, name: "batch", segmentSize: 100)
        try StoreWriter(store: batch).save(messages, in: c1)
        let single = try makeStore(in: directory, name: "single", segmentSize: 100)
        let writer = try StoreWriter(store: single)
        for message in messages {
            let result = try writer.save([message], in: c1)
            #expect(result.inserted == [message])
        }
        let a = try filesUnder(batch.root).filter { $0.key.contains("/messages/") }
        let b = try filesUnder(single.root).filter { $0.key.contains("/messages/") }
        #expect(a.keys.sorted() == b.keys.sorted())
        #expect(a == b)
        #expect(a.count == 4) // three segments and .newest
    }

    @Test(
        "messages/.newest appears with the second segment, not before; pages read the same with and without it, and a writer's start makes none for one segment"
    )
    func newestHintFromTheSecondSegment() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory, name: "hint", segmentSize: 100)
        let conversation = store.conversation(c1)
        let hint = conversation.messagesDirectory + "/" + StoreLayout.newestHint
        do {
            let writer = try StoreWriter(store: store)
            try writer.save((1...100).map { message($0, bob) }, in: c1)
            #expect(Sys.kind(of: hint) == nil)
            #expect(try conversation.newestMessages(limit: 3).messages.map(\.sequence) == [98, 99, 100])
        }
        // A writer starting on a store of one segment leaves it without a hint.
        do {
            let writer = try StoreWriter(store: store)
            #expect(Sys.kind(of: hint) == nil)
            try writer.save([message(101, alice)], in: c1)
            #expect(try Sys.readFile(hint) == Array("0000000101-0000000200.json\n".utf8))
            #expect(try conversation.newestMessages(limit: 2).messages.map(\.sequence) == [100, 101])
        }
        // A hint left wrong by hand is put right when a writer starts, as before.
        try Array("0000000001-0000000100.json\n".utf8).write(toFile: hint)
        #expect(try conversation.newestMessages(limit: 2).messages.map(\.sequence) == [100, 101])
        _ = try StoreWriter(store: store)
        #expect(try Sys.readFile(hint) == Array("0000000101-0000000200.json\n".utf8))
    }

    /// The segment file `range` of `store`'s c1.
    static func segmentPath(_ store: Store, _ range: SegmentRange) -> String {
        store.conversation(c1).messagesDirectory + "/" + range.fileName
    }

    /// Saves `messages` one at a time in a fresh store with segments of 100, then checks the
    /// segment against the full path's bytes for everything stored.
    static func appendOneByOne(_ messages: [Message], in directory: TemporaryDirectory, name: String) throws -> (
        store: Store, writer: StoreWriter
    ) {
        let store = try makeStore(in: directory, name: name, segmentSize: 100)
        let writer = try StoreWriter(store: store)
        for message in messages { try writer.save([message], in: c1) }
        return (store, writer)
    }

    @Test(
        "a segment changed by someone else between two saves is read again, not spliced: the edit stays and the new record follows it"
    )
    func editedBetweenSaves() throws {
        let directory = try TemporaryDirectory()
        let (store, writer) = try Self.appendOneByOne((1...5).map { message($0) }, in: directory, name: "s")
        let path = Self.segmentPath(store, SegmentRange(first: 1, last: 100))
        // Another tool rewrites the file canonically with one text changed (same length, so only the bytes tell).
        var edited = (1...5).map { message($0) }
        edited[2] = message(3, text: "MESSAGE 3")
        try DurableFile.write(
            SegmentFile.encode(edited), to: SegmentRange(first: 1, last: 100).fileName,
            in: store.conversation(c1).messagesDirectory)
        try writer.save([message(6)], in: c1)
        #expect(try Sys.readFile(path) == SegmentFile.encode(edited + [message(6)]))
    }

    @Test(
        "a segment left by an older version (pretty-printed) takes the full path and comes out canonical; the next save splices onto that"
    )
    func olderLayout() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory, name: "s", segmentSize: 100)
        let messages = (1...3).map { message($0) }
        try DurableFile.makeDirectories(store.conversation(c1).messagesDirectory)
        var pretty = "[\n"
        for (index, message) in messages.enumerated() {
            var writer = JSONWriter()
            SegmentFile.writeRecord(message, into: &writer)
            let record = String(decoding: writer.bytes, as: UTF8.self).replacingOccurrences(of: "\",\"", with: "\", \"")
            pretty += "  " + record + (index == messages.count - 1 ? "\n" : ",\n")
        }
        pretty += "]\n"
        let path = Self.segmentPath(store, SegmentRange(first: 1, last: 100))
        try Array(pretty.utf8).write(toFile: path)
        let writer = try StoreWriter(store: store)
        try writer.save([message(4)], in: c1)
        #expect(try Sys.readFile(path) == SegmentFile.encode((1...4).map { message($0) }))
        try writer.save([message(5)], in: c1)
        #expect(try Sys.readFile(path) == SegmentFile.encode((1...5).map { message($0) }))
    }

    /// Ways a segment the writer wrote can be damaged behind its back.
    enum Damage: String, CaseIterable, Sendable {
        /// Two records swapped by hand: the same bytes in another order, still valid JSON.
        case swapped
        /// Cut short, as a tool that does not write atomically leaves it.
        case cutShort
    }

    @Test(
        "a segment the writer wrote, damaged behind its back, is read again and refused, never spliced onto or overwritten",
        arguments: Damage.allCases)
    func damaged(_ damage: Damage) throws {
        let directory = try TemporaryDirectory()
        let (store, writer) = try Self.appendOneByOne((1...5).map { message($0) }, in: directory, name: "s")
        let path = Self.segmentPath(store, SegmentRange(first: 1, last: 100))
        var bytes = try Sys.readFile(path)
        switch damage {
        case .swapped:
            var lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            lines.swapAt(2, 3) // records 2 and 3, both with a comma
            bytes = Array(lines.joined(separator: "\n").utf8)
        case .cutShort:
            bytes.removeLast(5)
        }
        try bytes.write(toFile: path)
        #expect(throws: StoreError.self) { try writer.save([message(6)], in: c1) }
        #expect(try Sys.readFile(path) == bytes)
    }

    @Test(
        "a duplicate, a conflict, an earlier sequence and a batch out of order after splices give what the full path gives"
    )
    func mixedAfterSplices() throws {
        let directory = try TemporaryDirectory()
        let first = (1...10).map { message($0) }
        let (store, writer) = try Self.appendOneByOne(first, in: directory, name: "s")
        // The same message again (a duplicate), another ID at a taken sequence (a conflict), an ID
        // stored at another sequence (a conflict).
        let again = try writer.save([message(10)], in: c1)
        #expect(again.duplicates == 1 && again.alreadyStored == [message(10)] && again.inserted.isEmpty)
        let taken = try writer.save(
            [
                message(11, text: "x"),
                Message(
                    sequence: 10, clientMessageID: message(99).clientMessageID, senderID: bob, text: "other",
                    sentAt: "2026-11-29T10:00:00.000Z"),
            ], in: c1)
        #expect(taken.inserted == [message(11, text: "x")] && taken.conflicts.count == 1)
        let moved = try writer.save(
            [
                Message(
                    sequence: 12, clientMessageID: message(3).clientMessageID, senderID: bob, text: "m",
                    sentAt: "2026-11-29T10:00:00.000Z")
            ], in: c1)
        #expect(moved.inserted.isEmpty && moved.conflicts.count == 1)
        // A gap filled later, and a batch given newest first.
        try writer.save([message(14)], in: c1)
        try writer.save([message(13)], in: c1)
        try writer.save([message(16), message(15)], in: c1)
        let expected = first + [message(11, text: "x")] + (13...16).map { message($0) }
        #expect(
            try Sys.readFile(Self.segmentPath(store, SegmentRange(first: 1, last: 100))) == SegmentFile.encode(expected)
        )
    }

    @Test("a batch whose IDs repeat within it, or repeat one already stored, is not spliced in twice")
    func repeatedIDs() throws {
        let directory = try TemporaryDirectory()
        let (store, writer) = try Self.appendOneByOne((1...4).map { message($0) }, in: directory, name: "s")
        let id = message(2).clientMessageID
        let stored = Message(
            sequence: 5, clientMessageID: id, senderID: bob, text: "again", sentAt: "2026-11-29T10:00:00.000Z")
        #expect(try writer.save([stored], in: c1).conflicts == [stored])
        let twin = Message(
            sequence: 7, clientMessageID: message(6).clientMessageID, senderID: bob, text: "twin",
            sentAt: "2026-11-29T10:00:00.000Z")
        let result = try writer.save([message(6), twin], in: c1)
        #expect(result.inserted == [message(6)] && result.conflicts == [twin])
        #expect(
            try Sys.readFile(Self.segmentPath(store, SegmentRange(first: 1, last: 100)))
                == SegmentFile.encode((1...4).map { message($0) } + [message(6)]))
    }

    @Test("texts with quotes, backslashes, newlines and non-ASCII spliced in are the full path's bytes")
    func escapedTexts() throws {
        let directory = try TemporaryDirectory()
        let texts = [
            "say \"hi\"", "back\\slash", "two\nlines", "tab\there", "café ☕️", "\u{7F}del", "/slash/", "\u{2028}",
        ]
        let messages = texts.enumerated().map { message($0.offset + 1, text: $0.element) }
        let (store, _) = try Self.appendOneByOne(messages, in: directory, name: "s")
        #expect(
            try Sys.readFile(Self.segmentPath(store, SegmentRange(first: 1, last: 100))) == SegmentFile.encode(messages)
        )
    }

    @Test(
        "a second writer on the same store (after the first let go) splices onto the first one's bytes only after reading them"
    )
    func secondWriter() throws {
        let directory = try TemporaryDirectory()
        // its writer and lock end here
        let store = try Self.appendOneByOne((1...3).map { message($0) }, in: directory, name: "s").store
        let writer = try StoreWriter(store: store)
        try writer.save([message(4)], in: c1)
        try writer.save([message(5)], in: c1)
        #expect(
            try Sys.readFile(Self.segmentPath(store, SegmentRange(first: 1, last: 100)))
                == SegmentFile.encode((1...5).map { message($0) }))
    }
}

extension Array where Element == UInt8 {
    func write(toFile path: String) throws {
        try Data(self).write(to: URL(fileURLWithPath: path))
    }
}
