import ChatDomain
import ChatProtocol
import ChatStore
import ChatSystem
import ChatTestSupport
import Foundation
import Synchronization
import Testing

@testable import ChatSync

/// The live worker's side of the runtime channel (SyncEngine+RuntimeChannelFollower.swift): typing both
/// ways through the reference server, the quiet stop on a server without the endpoint, and
/// older pages fetched on a screen's wish. Every channel is `RuntimeChannel(root:)` in the
/// test's own directory.
@Suite(.ownThreads) struct RuntimeChannelWorkerTests {
    static func now() -> Int64 { Int64(Clock.nanosecondsSince1970() / 1_000_000) }

    /// A canned server for alice with c1 and its one message, 404 for anything else (typing
    /// included); `override` answers first where it returns a reply.
    static func aliceServer(_ override: @escaping @Sendable (String) -> CannedServer.Reply? = { _ in nil }) throws
        -> CannedServer
    {
        try CannedServer(live: .holdOpen) { _, path in
            if let reply = override(path) { return reply }
            if path == "/v1/me" { return .json(200, #"{"userId":"alice"}"#) }
            if path == "/v1/conversations" { return .json(200, "{\"items\":[\(HostileServerTests.good)]}") }
            if path.contains("/messages?after=0") {
                return .json(200, "{\"items\":[\(HostileServerTests.goodMessage)],\"hasMore\":false}")
            }
            if path.contains("/messages") { return .json(200, #"{"items":[],"hasMore":false}"#) }
            if path.contains("/receipts") { return .json(200, #"{"members":[]}"#) }
            if path.hasSuffix("/delivered") { return .json(200, #"{"deliveredUpTo":1}"#) }
            return .json(404, #"{"error":"no such endpoint"}"#)
        }
    }

    @Test("alice's typing-me reaches bob's channel as typing/alice; her message clears it")
    func typingAcrossTwoWorkers() async throws {
        let server = try TestServer()
        let directory = try TemporaryDirectory()
        let ab = try ConversationID("ab")
        let alice = try UserID("alice")
        let aliceChannel = RuntimeChannel(root: directory.path + "/run/alice")
        let bobChannel = RuntimeChannel(root: directory.path + "/run/bob")
        let aliceStore = try clientStore("alice", in: directory)
        let bobStore = try clientStore("bob", in: directory)
        let aliceLive = try SyncEngine(
            store: aliceStore, server: server.address, token: "alice-token", options: fastOptions, runtime: aliceChannel
        )
        var bobOptions = fastOptions
        bobOptions.idleCatchUp = .seconds(600) // her live message must clear it, not an idle catch-up's page
        let bobLive = try SyncEngine(
            store: bobStore, server: server.address, token: "bob-token", options: bobOptions, runtime: bobChannel)
        let logs = LogLines()
        let tasks = [
            Task { _ = await aliceLive.runLive { logs.append("alice: \($0)") } },
            Task { _ = await bobLive.runLive { logs.append("bob: \($0)") } },
        ]
        defer { tasks.forEach { $0.cancel() } }
        try await waitUntil("both workers caught up") { logs.lines.filter { $0.hasSuffix(": caught up") }.count >= 2 }

        // A signal the worker sees before bob's worker is ready is lost, as typing may be: signal
        // again, as a screen does while its user types, until bob's channel has it.
        let deadline = ContinuousClock.now + .seconds(30)
        var heard = false
        while !heard, ContinuousClock.now < deadline {
            try aliceChannel.signalMyTyping(ab, atMilliseconds: Self.now())
            let next = ContinuousClock.now + .seconds(4)
            while !heard, ContinuousClock.now < next {
                heard = bobChannel.typing(ab).contains { $0.user == alice }
                if !heard { try await Task.sleep(for: .milliseconds(20)) }
            }
        }
        #expect(heard, "bob's channel never had typing/alice: \(logs.lines)")
        #expect(Sys.kind(of: bobChannel.typingDirectory(of: ab) + "/alice") == .file)
        // Her own worker never notes her.
        #expect(aliceChannel.typing(ab).isEmpty)

        _ = try await APIClient(server: server.address, token: "alice-token").post(
            ab, clientMessageID: ClientMessageID.random(), text: "done typing")
        try await waitUntil("bob's worker clears typing/alice when her message arrives") {
            bobChannel.typing(ab).isEmpty
        }
        try await waitUntil("bob's store has her message") {
            try storedMessages(bobStore, "ab").map(\.text) == ["done typing"]
        }
    }

    @Test("a server answering 404 to /typing gets exactly one typing POST, however many signals follow")
    func typingStopsAfter404() async throws {
        let server = try Self.aliceServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let c1 = try ConversationID("c1")
        let channel = RuntimeChannel(root: directory.path + "/run")
        var options = fastOptions
        options.typingInterval = .zero // every new signal would be posted, were typing not switched off
        let engine = try SyncEngine(
            store: try TrustPacingTests.aliceStore(in: directory), server: try ServerAddress(server.url), token: "t",
            options: options, runtime: channel)
        let logs = LogLines()
        let worker = Task { await engine.runLive { logs.append($0) } }
        defer { worker.cancel() }
        try await waitUntil("the worker caught up") { logs.lines.contains("caught up") }
        let typingPosts = { server.seenRequests.filter { $0 == "POST /v1/conversations/c1/typing" }.count }

        var signal = Self.now()
        try channel.signalMyTyping(c1, atMilliseconds: signal)
        try await waitUntil("the worker said the server has no typing") {
            logs.lines.contains { $0.contains("no typing endpoint") }
        }
        // The worker looks at typing-me before older-wanted in the same round: once a wish made
        // after a signal is answered, that signal was seen. So each of the five is seen alone.
        for round in 1...5 {
            signal += 1
            try channel.signalMyTyping(c1, atMilliseconds: signal)
            try channel.wantOlder(c1, before: round + 1)
            try await waitUntil("the worker has seen signal \(round)") {
                channel.olderAnswer(c1) == .beginning(before: round + 1)
            }
        }
        try channel.wantOlder(c1, before: 1)
        try await waitUntil("the wish is answered") { channel.olderAnswer(c1) == .beginning(before: 1) }
        #expect(typingPosts() == 1, "\(server.seenRequests)")
        #expect(logs.lines.filter { $0.contains("no typing endpoint") }.count == 1, "\(logs.lines)")
        #expect(logs.lines.contains { $0.contains("live connection lost") } == false, "\(logs.lines)")
        worker.cancel()
        #expect(await worker.value == nil)
    }

    @Test("a stale or unchanged typing-me is not posted")
    func throttle() throws {
        let c1 = try ConversationID("c1")
        var throttle = TypingThrottle()
        let start = ContinuousClock.now
        // (signalled, wall clock now, seconds since start on the monotonic clock, posted?, why)
        let steps: [(Int64, Int64, Int64, Bool, String)] = [
            (10_000, 10_500, 0, true, "a fresh signal"),
            (10_000, 10_600, 4, false, "unchanged"),
            (11_000, 11_000, 1, false, "within 3 s of the last POST"),
            (14_000, 14_000, 4, true, "3 s later"),
            (1_000, 20_000, 10, false, "older than 5 s"),
            (99_000, 20_000, 20, false, "far in the future"),
        ]
        for (signalled, now, seconds, posted, why) in steps {
            let answer = throttle.shouldPost(
                c1, signalled: signalled, nowMilliseconds: now, at: start + .seconds(seconds))
            #expect(answer == posted, "\(why)")
        }
        var turnedOff = [throttle.failed(status: 503)]
        turnedOff.append(throttle.failed(status: 405))
        turnedOff.append(throttle.failed(status: 404))
        #expect(turnedOff == [false, true, false], "a 5xx leaves typing on; the first 405 turns it off, once")
        let afterOff = throttle.shouldPost(c1, signalled: 40_000, nowMilliseconds: 40_000, at: start + .seconds(40))
        #expect(!afterOff)
    }

    @Test("older-wanted brings the page before it into the store and says stored; at sequence 1 it says beginning")
    func olderPages() async throws {
        let server = try TestServer()
        let directory = try TemporaryDirectory()
        let ab = try ConversationID("ab")
        let bob = APIClient(server: server.address, token: "bob-token")
        for number in 1...12 {
            _ = try await bob.post(ab, clientMessageID: ClientMessageID.random(), text: "m\(number)")
        }
        let all = try await server.messages("ab")
        #expect(all.map(\.sequence) == Array(1...12))

        let channel = RuntimeChannel(root: directory.path + "/run")
        var options = fastOptions
        options.pageSize = 5
        let store = try clientStore("alice", in: directory)
        let engine = try SyncEngine(
            store: store, server: server.address, token: "alice-token", options: options, runtime: channel)
        // The store starts with the newest five only, as after an earlier sync from the middle.
        try await engine.store.saveInfo(
            ConversationInfo(title: "Alice and Bob", members: [try UserID("alice"), try UserID("bob")]), for: ab)
        try await engine.store.saveFromServer(Array(all.suffix(5)), in: ab, what: "the test's newest messages")
        let logs = LogLines()
        let worker = Task { await engine.runLive { logs.append($0) } }
        defer { worker.cancel() }
        try await waitUntil("the worker caught up") { logs.lines.contains("caught up") }
        #expect(try storedMessages(store, "ab").map(\.sequence) == Array(8...12))

        try channel.wantOlder(ab, before: 8)
        try await waitUntil("the page before 8 is stored") { channel.olderAnswer(ab) == .stored(before: 8) }
        #expect(try storedMessages(store, "ab").map(\.sequence) == Array(3...12))
        try channel.wantOlder(ab, before: 3)
        try await waitUntil("the page before 3 is stored") { channel.olderAnswer(ab) == .stored(before: 3) }
        #expect(try storedMessages(store, "ab").map(\.sequence) == Array(1...12))
        try channel.wantOlder(ab, before: 1)
        try await waitUntil("the beginning is reached") { channel.olderAnswer(ab) == .beginning(before: 1) }
        #expect(try storedMessages(store, "ab").map(\.text) == all.map(\.text), "\(logs.lines)")
        worker.cancel()
        #expect(await worker.value == nil)
    }

    @Test("a failed older page is answered failed, with the server's reason, and the worker goes on")
    func olderPageFails() async throws {
        let server = try Self.aliceServer { path in
            path.contains("/messages?before=") ? .json(503, #"{"error":"busy"}"#) : nil
        }
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let c1 = try ConversationID("c1")
        let channel = RuntimeChannel(root: directory.path + "/run")
        var options = fastOptions
        options.attemptsPerPass = 1
        let engine = try SyncEngine(
            store: try TrustPacingTests.aliceStore(in: directory), server: try ServerAddress(server.url), token: "t",
            options: options, runtime: channel)
        let logs = LogLines()
        let worker = Task { await engine.runLive { logs.append($0) } }
        defer { worker.cancel() }
        try await waitUntil("the worker caught up") { logs.lines.contains("caught up") }
        try channel.wantOlder(c1, before: 5)
        try await waitUntil("the wish is answered") {
            if case .failed? = channel.olderAnswer(c1) { return true }
            return false
        }
        guard case .failed(let before, let reason)? = channel.olderAnswer(c1) else { return }
        #expect(before == 5)
        #expect(reason.contains("503"), "\(reason)")
        #expect(
            server.seenRequests.filter { $0.contains("before=") }.count == 1,
            "one attempt (attemptsPerPass 1): \(server.seenRequests)")
        worker.cancel()
        #expect(await worker.value == nil)
    }
}
