import ChatDomain
import ChatStore
import Foundation
import Synchronization
import Testing
@testable import ChatSync
import ChatTestSupport

/// The live worker's driver (LiveSync.swift) end to end against a canned server.
@Suite(.ownThreads) struct LiveSyncTests {
    @Test("a gap catch-up that fails is reported like a failed idle catch-up: conversation, kind, and the server's answer")
    func gapCatchUpFailureIsReported() async throws {
        // Sequence 1 comes with the first catch-up; the live event brings 3, so 2 is a hole. Every
        // later page request (the hole's catch-up, and the idle catch-up, both from 1) gets 503.
        let event = #"{"type":"message","conversationId":"c1","message":{"clientMessageId":"\#(UUID().uuidString)","senderId":"bob","text":"past the hole","sequence":3,"sentAt":"2026-11-29T10:00:00.000Z"}}"#
        let pages = Mutex(0)
        let server = try CannedServer(live: .send([event])) { _, path in
            if path == "/v1/me" { return .json(200, #"{"userId":"alice"}"#) }
            if path == "/v1/conversations" { return .json(200, "{\"items\":[\(HostileServerTests.good)]}") }
            if path.contains("/receipts") { return .json(200, #"{"members":[]}"#) }
            if path.hasSuffix("/delivered") { return .json(200, #"{"deliveredUpTo":1}"#) }
            guard path.contains("/messages?after=0"), pages.withLock({ count in count += 1; return count == 1 }) else { return .json(503, #"{"error":"busy"}"#) }
            return .json(200, "{\"items\":[\(HostileServerTests.goodMessage)],\"hasMore\":false}")
        }
        let directory = try TemporaryDirectory()
        var options = fastOptions
        options.attemptsPerPass = 1  // each catch-up fails at its first 503, not after fifty
        let engine = try SyncEngine(store: try TrustPacingTests.aliceStore(in: directory), server: try ServerAddress(server.url), token: "t", options: options)
        let lines = LogLines()
        let worker = Task { await engine.runLive { line in lines.append(line) } }
        let reason = { (kind: String) in
            lines.lines.first { $0.hasPrefix("c1: \(kind) catch-up failed: ") }.map { String($0.dropFirst("c1: \(kind) catch-up failed: ".count)) }
        }
        try await waitUntil(timeout: .seconds(30), "both a gap and an idle catch-up failed and said so") { reason("gap") != nil && reason("idle") != nil }
        worker.cancel()
        #expect(await worker.value == nil)
        let gap = try #require(reason("gap"), "\(lines.lines) \(server.seenRequests)")
        #expect(gap.contains("503"), "\(gap)")
        #expect(gap == reason("idle"), "\(lines.lines)")
    }
}
