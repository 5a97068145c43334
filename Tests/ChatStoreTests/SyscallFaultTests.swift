import ChatDomain
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatStore

/// ENOSPC and EIO injected at every file syscall of `send`, `retry` and `read` (through
/// ``FaultInjection``, scoped to each test's own temp directory): the error names the call and
/// the file, a change that returned is on disk, a change that failed left nothing behind, every
/// file still parses, and the same change works once the disk is fine again.
@Suite(.ownThreads) struct SyscallFaultTests {
    static let faults: [(errno: Errno, persistent: Bool)] = [
        (.noSpace, false), (.ioError, false), (.noSpace, true), (.ioError, true),
    ]

    /// The outbox as the user would see it: every queued message, its state and text.
    static func outboxState(_ store: Store) throws -> [String] {
        try store.conversation(c1).outbox().map { "\($0.clientMessageID) \($0.state) \($0.text)" }
    }

    /// A store with conversation c1 (its details written, the writer's lock let go).
    static func makeConversationStore(in directory: TemporaryDirectory) throws -> Store {
        let store = try makeStore(in: directory)
        try StoreWriter(store: store).saveInfo(ConversationInfo(title: "T", members: [alice, bob]), for: c1)
        return store
    }

    /// The calls `change` makes under `directory`, counted with a rule that fails nothing.
    static func callCount(under directory: String, _ change: () throws -> Void) throws -> Int {
        FaultInjection.inject(Set(FaultInjection.Operation.allCases), under: directory, failAt: nil)
        defer { FaultInjection.clear(directory) }
        try change()
        return FaultInjection.rule(directory)?.calls ?? 0
    }

    /// Only temp-file warnings (a failed writer's temp may stay until the worker cleans it).
    static func expectClean(_ store: Store, sourceLocation: SourceLocation = #_sourceLocation) {
        let report = StoreChecker.check(root: store.root)
        #expect(report.errors.isEmpty, "\(report.errors)", sourceLocation: sourceLocation)
        #expect(
            report.warnings.allSatisfy { $0.message.contains("temporary file") }, "\(report.warnings)",
            sourceLocation: sourceLocation)
    }

    static func expectClearError(
        _ error: StoreError, errno code: Errno, under directory: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let text = error.description
        #expect(
            FaultInjection.Operation.allCases.contains { text.hasPrefix($0.rawValue + " " + directory) }, "\(text)",
            sourceLocation: sourceLocation)
        #expect(text.contains(code.description), "\(text)", sourceLocation: sourceLocation)
        #expect(error.exitCode == 74, sourceLocation: sourceLocation)
        // And what to do about it.
        #expect(
            text.contains(code == .noSpace ? "free some space" : "check the disk"), "\(text)",
            sourceLocation: sourceLocation)
    }

    /// Runs `change` once per call it makes, failing that call (and every later one when
    /// persistent) with `errno`: on success `succeeded` must hold of the store, on failure
    /// `failed` (given the outbox as it was before; by default it must be unchanged).
    static func everyCall(
        _ setUp: (Store) throws -> Void, _ change: @escaping (Store) throws(StoreError) -> Void,
        succeeded: (Store) throws -> Void, failed: ((Store, [String]) throws -> Void)? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let counting = try TemporaryDirectory(inMemory: true)
        let countingStore = try makeConversationStore(in: counting)
        try setUp(countingStore)
        let count = try callCount(under: counting.path) { try change(countingStore) }
        #expect(count >= 4, "the change made only \(count) calls", sourceLocation: sourceLocation)
        for n in 1...count {
            for fault in faults {
                let directory = try TemporaryDirectory(inMemory: true)
                let store = try makeConversationStore(in: directory)
                try setUp(store)
                let before = try outboxState(store)
                FaultInjection.inject(
                    Set(FaultInjection.Operation.allCases), under: directory.path, failAt: n,
                    persistent: fault.persistent, errno: fault.errno)
                var failure: StoreError?
                do throws(StoreError) { try change(store) } catch { failure = error }
                let rule = FaultInjection.clear(directory.path)
                let context = "call \(n) of \(count), errno \(fault.errno), persistent \(fault.persistent)"
                if let failure {
                    expectClearError(failure, errno: fault.errno, under: directory.path, sourceLocation: sourceLocation)
                    if let failed {
                        try failed(store, before)
                    } else {
                        #expect(
                            try outboxState(store) == before, "a failed change left the outbox changed (\(context))",
                            sourceLocation: sourceLocation)
                    }
                } else {
                    #expect(
                        rule?.failed == 0, "a call failed yet the change reported success (\(context))",
                        sourceLocation: sourceLocation)
                    try succeeded(store)
                }
                expectClean(store, sourceLocation: sourceLocation)
                // The disk is fine again: the same change works.
                try change(store)
                try succeeded(store)
                expectClean(store, sourceLocation: sourceLocation)
            }
        }
    }

    @Test(
        "a send that fails at any file call says which call and file failed and queues nothing; one that returns is on disk"
    )
    func send() throws {
        let id = try ClientMessageID("00000000-0000-4000-8000-000000000001")
        try Self.everyCall(
            { store in
                try Outbox(store.conversation(c1)).enqueue("earlier")
            },
            { store throws(StoreError) in
                try Outbox(store.conversation(c1)).enqueue("hello", id: id)
            },
            succeeded: { store in
                let texts = try store.conversation(c1).outbox().map(\.text)
                #expect(texts == ["earlier", "hello"])
            })
    }

    @Test("a retry that fails at any file call leaves the message failed; one that returns left it pending at the back")
    func retry() throws {
        let id = try ClientMessageID("00000000-0000-4000-8000-000000000002")
        try Self.everyCall(
            { store in
                let conversation = store.conversation(c1)
                let entry = try Outbox(conversation).enqueue("refused", id: id)
                var failed = entry
                failed.state = .failed
                failed.error = "no"
                try DurableFile.write(
                    OutboxFile.encode(failed), to: OutboxFile.fileName(ordinal: entry.ordinal, id: id),
                    in: conversation.outboxDirectory)
                try Outbox(conversation).enqueue("later")
            },
            { store throws(StoreError) in
                try Outbox(store.conversation(c1)).retry(id)
            },
            succeeded: { store in
                let entries = try store.conversation(c1).outbox()
                #expect(entries.map(\.text) == ["later", "refused"])
                #expect(entries.last?.state == .pending)
            },
            failed: { store, before in
                // Rename to the back, then rewrite as pending: a failure between leaves it failed at
                // the back (as a crash would); either way one file for the ID, and it parses.
                let entries = try store.conversation(c1).outbox()
                #expect(entries.filter { $0.clientMessageID == id }.count == 1)
                #expect(entries.count == 2)
            })
    }

    @Test("a read wish that fails at any file call leaves the old wish; one that returns is on disk")
    func read() throws {
        try Self.everyCall(
            { store in
                try Outbox(store.conversation(c1)).wantRead(upTo: 3)
            },
            { store throws(StoreError) in
                try Outbox(store.conversation(c1)).wantRead(upTo: 7)
            },
            succeeded: { store in
                let wish = try store.conversation(c1).wantedReadPosition()
                #expect(wish == 7)
            },
            failed: { store, _ in
                // A replaced file cannot be put back: the wish is the old one or the new one.
                let wish = try store.conversation(c1).wantedReadPosition()
                #expect(wish == 3 || wish == 7)
            })
    }

    @Test(
        "init failing at any file call leaves no store and no half-built directory behind (unless the disk fails the clean-up too), and says which call failed; init then works",
        arguments: [false, true])
    func create(intoEmptyDirectory: Bool) throws {
        let counting = try TemporaryDirectory(inMemory: true)
        if intoEmptyDirectory { try Sys.mkdir(counting.file("store")) }
        let count = try Self.callCount(under: counting.path) { _ = try makeStore(in: counting) }
        #expect(count >= 4, "init made only \(count) calls")
        for n in 1...count {
            for fault in Self.faults {
                let context = "call \(n) of \(count), errno \(fault.errno), persistent \(fault.persistent)"
                let directory = try TemporaryDirectory(inMemory: true)
                if intoEmptyDirectory { try Sys.mkdir(directory.file("store")) }
                FaultInjection.inject(
                    Set(FaultInjection.Operation.allCases), under: directory.path, failAt: n,
                    persistent: fault.persistent, errno: fault.errno)
                var failure: StoreError?
                do { _ = try makeStore(in: directory) } catch let error as StoreError { failure = error }
                FaultInjection.clear(directory.path)
                // Cleaning up is best effort: on a disk that keeps failing its unlinks fail too, and
                // the half-built store stays, hidden (`.store.<pid>.<random>.tmp`).
                let left = try Sys.listDirectory(directory.path).filter {
                    !(fault.persistent && $0.hasPrefix(".store.") && $0.hasSuffix(".tmp"))
                }.sorted()
                if let failure, fault.persistent, (try? Store.open(at: directory.file("store"))) != nil {
                    // The disk failed the clean-up's rename too: the store stays, whole.
                    Self.expectClearError(failure, errno: fault.errno, under: directory.path)
                    #expect(StoreChecker.check(root: directory.file("store")).errors.isEmpty, "\(context)")
                } else if let failure {
                    Self.expectClearError(failure, errno: fault.errno, under: directory.path)
                    // No store: as before (an empty directory where there was one), nothing hidden.
                    #expect(left == (intoEmptyDirectory ? ["store"] : []), "\(context): \(left)")
                    if intoEmptyDirectory {
                        #expect(try Sys.listDirectory(directory.file("store")).isEmpty, "\(context)")
                    }
                    #expect(throws: StoreError.self, "\(context): a store opens after a failed init") {
                        try Store.open(at: directory.file("store"))
                    }
                    _ = try makeStore(in: directory)
                } else {
                    #expect(left == ["store"], "\(context): \(left)")
                }
                #expect(try Store.open(at: directory.file("store")).userID == alice, "\(context)")
            }
        }
    }

    @Test(
        "a failed system call's error says what to do about a full disk, a used-up quota and an I/O error; other errors add nothing",
        arguments: [
            (Errno.noSpace, "; the disk is full: free some space, then run the command again"),
            (.quotaExceeded, "; the disk quota is used up: free some space, then run the command again"),
            (
                .ioError,
                "; the disk reported an I/O error: check the disk (`dmesg` says more), then run the command again"
            ),
            (.accessDenied, ""),
        ])
    func remedy(_ code: Errno, _ words: String) {
        let error = StoreError.system(SystemError(operation: "fsync", path: "/s/conversations/c1/outbox", errno: code))
        #expect(error.description == "fsync /s/conversations/c1/outbox: \(code.description)" + words)
    }
}
