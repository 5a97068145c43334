import ChatDomain
import ChatStore
import ChatTestSupport
import Foundation
import Testing

@testable import ChatSync

/// The Matrix session's live `/sync` loop against a byte-scripted homeserver.
@Suite(.ownThreads) struct MatrixSessionLiveTests {
    @Test("a homeserver that answers every long poll at once with nothing is asked at most twice a second")
    func emptyAnswersArePaced() async throws {
        let server = try CannedServer { _, path in
            if path.hasPrefix("/_matrix/client/v3/account/whoami") {
                return .json(200, #"{"user_id":"@alice:example.org","device_id":"D"}"#)
            }
            return .json(200, #"{"next_batch":"s1"}"#)
        }
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let store = try Store.create(
            at: directory.path + "/store", manifest: Manifest(userID: try UserID("@alice:example.org")))
        let client = MatrixClient(
            server: ServerAddress(host: "127.0.0.1", port: server.port), accessToken: "t", timeout: .seconds(10))
        let session = MatrixSession(client: client, store: try SyncStore(store: store))
        let started = ContinuousClock.now
        let consumer = Task {
            var updates: [LiveUpdate] = []
            for await batch in session.liveUpdates(limit: 100) { updates += batch }
            return updates
        }
        try await waitUntil("the loop has asked a few times") {
            server.seenRequests.filter { $0.contains("/sync") }.count >= 4
        }
        try await Task.sleep(for: .seconds(1))
        consumer.cancel()
        let updates = await consumer.value
        let elapsed = ContinuousClock.now - started
        let syncs = server.seenRequests.filter { $0.contains("/sync") }.count
        #expect(updates == [.connected])
        // One initial /sync, then one long poll per half second at most.
        #expect(Double(syncs) <= 2 + elapsed / .milliseconds(500), "\(syncs) requests in \(elapsed)")
    }
}
