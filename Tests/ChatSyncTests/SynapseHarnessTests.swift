import ChatTestSupport
import Foundation
import Testing

/// The Matrix tests' homeserver (``Synapse``) and their other member (`scripts/matrix-peer.py`):
/// a real Synapse on loopback that two users can talk through.
@Suite(.ownThreads)
struct SynapseHarnessTests {
    /// CI installs Synapse (`.ci/run` runs `scripts/install-synapse.sh`), so there a missing
    /// homeserver is a broken run, not a reason to skip every Matrix suite.
    @Test func installedUnderCI() {
        guard ProcessInfo.processInfo.environment["CI"] == "true" else { return }
        #expect(Synapse.isInstalled, "CI=true but \(Synapse.notInstalled); looked in \(Synapse.virtualEnvironment)")
    }

    @Test(.enabled(if: Synapse.isInstalled, Comment(rawValue: Synapse.notInstalled)))
    func twoMembersTalk() throws {
        let synapse = try Synapse.start()
        let alice = try synapse.register("alice")
        let bob = try synapse.register("bob")
        #expect(alice.userID == "@alice:localhost")

        let created = try synapse.peer(bob, ["create-room", "--name", "Dinner", "--invite", alice.userID])
        let room = try #require(created["room_id"] as? String)
        try synapse.peer(alice, ["join", room])
        for text in ["first", "second"] { try synapse.peer(bob, ["send", room, text]) }

        let events = try #require(try synapse.peer(alice, ["messages", room])["events"] as? [[String: Any]])
        let bodies = events.compactMap { ($0["content"] as? [String: Any])?["body"] as? String }
        #expect(bodies == ["first", "second"])
        #expect(events.allSatisfy { $0["sender"] as? String == bob.userID })
    }

    /// Two homeservers at once (tests run in parallel): each on its own port and database.
    @Test(.enabled(if: Synapse.isInstalled, Comment(rawValue: Synapse.notInstalled)))
    func independentServers() throws {
        let first = try Synapse.start()
        let second = try Synapse.start()
        #expect(first.port != second.port)
        let alice = try first.register("alice")
        _ = try second.register("alice")
        let room = try #require(try first.peer(alice, ["create-room"])["room_id"] as? String)
        // The room exists on the first homeserver only.
        #expect(throws: Synapse.Failure.self) {
            try second.peer(try second.register("carol"), ["join", room])
        }
        first.stop()
        #expect(throws: Synapse.Failure.self) { try first.peer(alice, ["whoami"]) }
    }
}
