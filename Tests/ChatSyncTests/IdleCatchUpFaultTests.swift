import ChatDomain
import ChatServer
import ChatStore
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatSync

/// The live worker's idle catch-up (what brings a message whose live event was lost) reports a
/// failed save like the live path does. Seen in parallel runs: the idle catch-up took the
/// injected ENOSPC and said nothing, so the worker stayed silent about a disk it could not write.
@Suite(.ownThreads) struct IdleCatchUpFaultTests {
    @Test(
        "a message only the idle catch-up brings (every live event dropped), saved onto a full disk: the worker says which call and file failed"
    )
    func idleCatchUpSaveFails() async throws {
        let directory = try TemporaryDirectory()
        let server = try TestServer(faults: "live-drop=1")
        let alice = try clientStore("alice", in: directory)
        _ = try await pass(alice, server)
        let logs = SyncFaultTests.Log()
        let task = Task { [alice, server] in
            guard let live = try? engine(alice, server) else { return }
            _ = await live.runLive(log: { line in logs.append(line) })
        }
        defer { task.cancel() }
        try await waitUntil("alice's live worker has caught up") { logs.all.contains("caught up") }
        let messages = alice.conversation(try ConversationID("ab")).messagesDirectory
        FaultInjection.inject(
            SyncFaultTests.allOperations, under: messages, failAt: 1, persistent: true, errno: .noSpace)
        defer { FaultInjection.clear(messages) }
        _ = try await APIClient(server: server.address, token: "bob-token").post(
            try ConversationID("ab"), clientMessageID: .random(), text: "while the disk is full")
        try await waitUntil("the worker tried to save the message") { (FaultInjection.rule(messages)?.failed ?? 0) > 0 }
        try await waitUntil("the worker logs the failed save") {
            logs.all.contains { $0.contains(Errno.noSpace.description) }
        }
        SyncFaultTests.expectClearError(logs.all, errno: .noSpace, under: messages, "idle catch-up")
        FaultInjection.clear(messages)
        try await waitUntil("the message is stored once the disk has room") {
            try storedMessages(alice, "ab").contains { $0.text == "while the disk is full" }
        }
        task.cancel()
        _ = await task.value
    }
}
