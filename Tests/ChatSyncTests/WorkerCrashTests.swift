import ChatDomain
import ChatStore
import ChatTestSupport
import Foundation
import Testing

@testable import ChatSync

/// `chatdir sync --live` as a real process, killed with SIGKILL at random moments while
/// messages flow both ways under faults: after a restart everything converges, nothing is
/// lost or doubled, and every file parses.
@Suite(.ownThreads) struct WorkerCrashTests {
    func worker(_ store: Store, _ server: TestServer, live: Bool) throws -> TestProcess {
        try startChatdirSync(store: store, server: server.address, token: "alice-token", live: live)
    }

    @Test(
        "the live worker SIGKILLed 30 times while 200 messages are sent under faults: converges, nothing lost or doubled"
    )
    func killedWorker() async throws {
        let directory = try TemporaryDirectory()
        let server = try TestServer(
            faults: "drop-reply=0.1,error5xx=0.1,live-drop=0.1,live-dup=0.1,live-reorder=0.1,seed=9")
        let alice = try clientStore("alice", in: directory)
        let ab = try ConversationID("ab")
        var first = try worker(alice, server, live: false)
        first.waitUntilExit()
        #expect(alice.conversation(ab).exists)

        let bob = APIClient(server: server.address, token: "bob-token")
        var queued: [ClientMessageID] = []
        var random = SplitMix64(seed: UInt64(Date().timeIntervalSince1970))
        var kills = 0
        for round in 0..<30 {
            let process = try worker(alice, server, live: true)
            // Both directions move while the worker runs: alice queues, bob posts.
            for index in 0..<4 {
                queued.append(try Outbox(alice.conversation(ab)).enqueue("alice \(round)-\(index)").clientMessageID)
            }
            for index in 0..<3 {
                _ = try? await bob.post(ab, clientMessageID: .random(), text: "bob \(round)-\(index)")
            }
            try await Task.sleep(for: .milliseconds(Int(20 + random.next() % 200)))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            if process.terminationReason == .uncaughtSignal { kills += 1 }
            // Between kills every visible file parses.
            #expect(StoreChecker.check(root: alice.root).errors.isEmpty, "round \(round)")
        }
        #expect(kills >= 30)
        for index in 0..<80 {
            queued.append(try Outbox(alice.conversation(ab)).enqueue("alice after \(index)").clientMessageID)
        }

        // Restart: one pass at a time until everything pending was accepted.
        var status: Int32 = -1
        for _ in 0..<20 where status != 0 {
            first = try worker(alice, server, live: false)
            first.waitUntilExit()
            status = first.terminationStatus
        }
        #expect(status == 0)
        let history = try await server.messages("ab")
        let fromAlice = history.filter { $0.senderID.rawValue == "alice" }
        #expect(fromAlice.count == queued.count, "every queued message on the server exactly once")
        #expect(Set(fromAlice.map(\.clientMessageID)) == Set(queued))
        #expect(history.map(\.sequence) == Array(1...history.count))
        #expect(try storedMessages(alice, "ab") == history)
        #expect(try alice.conversation(ab).outbox().isEmpty)
        let report = StoreChecker.check(root: alice.root)
        #expect(report.errors.isEmpty && report.warnings.allSatisfy { $0.message.hasPrefix("a temporary file") })
    }
}
