import ChatDomain
import ChatStore
import ChatTestSupport
import Foundation
import Synchronization
import Testing

@testable import ChatSync

/// The live worker's driver (SyncEngine+LiveSync.swift) end to end against a canned server.
@Suite(.ownThreads) struct LiveSyncTests {
    @Test(
        "a catch-up after a deferred discovery that fails is reported like a failed idle catch-up: conversation, kind, why"
    )
    func deferredCatchUpFailureIsReported() async throws {
        // Two events for x2, which the server lists only from its third conversation list on: the
        // first event's discovery does not find it; the second comes within the discovery interval
        // and defers one, which finds x2 and catches it up from a page that breaks the contract.
        let event = { (sequence: Int) in
            #"{"type":"message","conversationId":"x2","message":{"clientMessageId":"\#(UUID().uuidString)","senderId":"bob","text":"new","sequence":\#(sequence),"sentAt":"2026-11-29T10:00:00.000Z"}}"#
        }
        let lists = Mutex(0)
        let x2 = #"{"id":"x2","title":"New","members":["alice","bob"],"lastSequence":2}"#
        let server = try CannedServer(live: .send([event(1), event(2)])) { _, path in
            if path == "/v1/me" { return .json(200, #"{"userId":"alice"}"#) }
            if path == "/v1/conversations" {
                let listsX2 = lists.withLock { count in
                    count += 1
                    return count >= 3
                }
                return .json(200, "{\"items\":[\(HostileServerTests.good)\(listsX2 ? "," + x2 : "")]}")
            }
            if path.contains("/x2/messages") { return .json(200, #"{"items":"none","hasMore":false}"#) }
            if path.contains("/messages?after=0") {
                return .json(200, "{\"items\":[\(HostileServerTests.goodMessage)],\"hasMore\":false}")
            }
            if path.contains("/messages") { return .json(200, #"{"items":[],"hasMore":false}"#) }
            if path.contains("/receipts") { return .json(200, #"{"members":[]}"#) }
            if path.hasSuffix("/delivered") { return .json(200, #"{"deliveredUpTo":1}"#) }
            return .json(404, #"{"error":"no such endpoint"}"#)
        }
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        var options = fastOptions
        // Long enough that the second event surely comes within it, short enough for a quick test.
        options.discoveryInterval = .seconds(4)
        let engine = try SyncEngine(
            store: try TrustPacingTests.aliceStore(in: directory), server: try ServerAddress(server.url), token: "t",
            options: options)
        let lines = LogLines()
        let worker = Task { await engine.runLive { line in lines.append(line) } }
        let prefix = "x2: deferred catch-up failed: "
        do {
            try await waitUntil("the deferred catch-up's failure is reported") {
                lines.lines.contains { $0.hasPrefix(prefix) }
            }
        } catch {
            Issue.record("the worker's log: \(lines.lines); the server saw: \(server.seenRequests)")
            throw error
        }
        worker.cancel()
        #expect(await worker.value == nil)
        let reason = lines.lines.first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) } ?? ""
        #expect(reason.hasPrefix("the server broke the wire contract: "), "\(reason)")
        #expect(lines.lines.filter { $0.hasPrefix(prefix) }.count == 1, "\(lines.lines)")
    }

    @Test(
        "a gap catch-up that fails is reported like a failed idle catch-up: conversation, kind, and the server's answer"
    )
    func gapCatchUpFailureIsReported() async throws {
        // Sequence 1 comes with the first catch-up; the live event brings 3, so 2 is a hole. Every
        // later page request (the hole's catch-up, and the idle catch-up, both from 1) gets 503.
        let event =
            #"{"type":"message","conversationId":"c1","message":{"clientMessageId":"\#(UUID().uuidString)","senderId":"bob","text":"past the hole","sequence":3,"sentAt":"2026-11-29T10:00:00.000Z"}}"#
        let pages = Mutex(0)
        let server = try CannedServer(live: .send([event])) { _, path in
            if path == "/v1/me" { return .json(200, #"{"userId":"alice"}"#) }
            if path == "/v1/conversations" { return .json(200, "{\"items\":[\(HostileServerTests.good)]}") }
            if path.contains("/receipts") { return .json(200, #"{"members":[]}"#) }
            if path.hasSuffix("/delivered") { return .json(200, #"{"deliveredUpTo":1}"#) }
            guard path.contains("/messages?after=0"),
                pages.withLock({ count in
                    count += 1
                    return count == 1
                })
            else { return .json(503, #"{"error":"busy"}"#) }
            return .json(200, "{\"items\":[\(HostileServerTests.goodMessage)],\"hasMore\":false}")
        }
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        var options = fastOptions
        options.attemptsPerPass = 1 // each catch-up fails at its first 503, not after fifty
        let engine = try SyncEngine(
            store: try TrustPacingTests.aliceStore(in: directory), server: try ServerAddress(server.url), token: "t",
            options: options)
        let lines = LogLines()
        let worker = Task { await engine.runLive { line in lines.append(line) } }
        let reason = { (kind: String) in
            lines.lines.first { $0.hasPrefix("c1: \(kind) catch-up failed: ") }.map {
                String($0.dropFirst("c1: \(kind) catch-up failed: ".count))
            }
        }
        try await waitUntil("both a gap and an idle catch-up failed and said so") {
            reason("gap") != nil && reason("idle") != nil
        }
        worker.cancel()
        #expect(await worker.value == nil)
        let gap = try #require(reason("gap"), "\(lines.lines) \(server.seenRequests)")
        #expect(gap.contains("503"), "\(gap)")
        #expect(gap == reason("idle"), "\(lines.lines)")
    }
}
