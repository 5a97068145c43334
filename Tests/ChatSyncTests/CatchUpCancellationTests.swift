import ChatDomain
import ChatStore
import ChatTestSupport
import Foundation
import Testing

@testable import ChatSync

/// A stopped worker stops asking: SIGTERM cancels the live worker's task, and a catch-up that
/// is retrying a failing page must not go on retrying it (seen in the crash-loop soak, seed
/// 20261203: a worker told to stop while catching up from a faulty server kept running).
@Suite(.ownThreads) struct CatchUpCancellationTests {
    @Test("a cancelled catch-up sends no more page requests while the server keeps failing")
    func cancelledCatchUpStopsRetrying() async throws {
        let server = try CannedServer { _, path in
            if path.contains("/messages") { return .json(503, #"{"error":"try later"}"#) }
            return .json(404, #"{"error":"no"}"#)
        }
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.path + "/store", manifest: Manifest(userID: try UserID("alice")))
        let ab = try ConversationID("ab")
        try StoreWriter(store: store).saveInfo(
            ConversationInfo(title: "AB", members: [try UserID("alice"), try UserID("bob")]), for: ab)
        // 50 attempts with 20–200 ms backoff: left alone, the page would be asked for ~10 s.
        let engine = try SyncEngine(
            store: store, server: try ServerAddress(server.url), token: "alice-token", options: fastOptions)
        let pageRequests = { server.seenRequests.filter { $0.contains("/messages") }.count }

        let catchUp = Task { try await engine.catchUp(ab, from: 0) }
        try await waitUntil("the first page was asked for") { pageRequests() >= 1 }
        catchUp.cancel()
        let asked = pageRequests()
        let result = await catchUp.result
        let after = pageRequests() - asked
        #expect(throws: (any Error).self) { try result.get() }
        // One request may already be on the wire when the cancel comes; no retry after it.
        #expect(after <= 1, "\(after) page requests after the cancel")
    }
}
