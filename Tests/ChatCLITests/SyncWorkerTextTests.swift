import ChatDomain
import ChatStore
import Testing

@testable import ChatCLI

/// The worker's state on the screens' status line, in the words of `chatdir status`.
@Suite struct SyncWorkerTextTests {
    static func status(_ connection: SyncStatus.Connection, pid: Int32 = 42, problem: String? = nil) -> SyncStatus {
        var status = SyncStatus(pid: pid, mode: .live, startedAt: 0, connection: connection)
        status.problem = problem
        return status
    }

    static let cases: [(Int32?, SyncWorkerState, Int, String)] = [
        (nil, SyncWorkerState(), 0, "no sync worker running"),
        (nil, SyncWorkerState(), 2, "no sync worker running: pending messages wait in the outbox"),
        (
            nil,
            SyncWorkerState(
                status: status(
                    .stopped,
                    problem: "the server refused the token (401: unknown token); check CHATDIR_TOKEN or --token-file")),
            1,
            "no sync worker running: the last one stopped: the server refused the token (401: unknown token); check CHATDIR_TOKEN or --token-file"
        ),
        (42, SyncWorkerState(), 0, "sync worker running (pid 42)"),
        (42, SyncWorkerState(status: status(.connected, pid: 41)), 0, "sync worker running (pid 42)"),
        (42, SyncWorkerState(status: status(.connected)), 0, "sync worker connected"),
        (
            42,
            SyncWorkerState(
                status: status(
                    .reconnecting, problem: "server unreachable: connect 127.0.0.1:8080: Connection refused"),
                nextTryIn: 4), 3,
            "sync worker reconnecting (server unreachable: connect 127.0.0.1:8080: Connection refused; next try in 4 s)"
        ),
        (
            42,
            SyncWorkerState(
                status: status(
                    .reconnecting, problem: "the server broke the wire contract: x; nothing from that answer was stored"
                ), nextTryIn: 0), 0,
            "sync worker reconnecting (the server broke the wire contract: x; nothing from that answer was stored; trying now)"
        ),
    ]

    @Test("each state in words", arguments: cases)
    func words(_ pid: Int32?, _ worker: SyncWorkerState, _ pending: Int, _ expected: String) {
        #expect(SyncWorkerText.summary(pid: pid, worker, pending: pending) == expected)
    }

    @Test("a stopped conversation: a damaged file gets the way to find and repair it, another reason keeps its own")
    func stopped() throws {
        let dinner = try ConversationID("dinner")
        #expect(
            SyncWorkerText.stopped(
                "conversations/dinner/messages/0000000001-0000000100.json:3: not valid JSON", conversation: dinner,
                hint: .defaultStore)
                == "sync stopped for dinner: conversations/dinner/messages/0000000001-0000000100.json:3: not valid JSON; repair it (chatdir check names every damaged line), then the sync worker syncs it again by itself"
        )
        let differs =
            "the server broke the wire contract: the server's history differs from the store's at sequence 4: …; ask the server's operator to restore its data"
        #expect(
            SyncWorkerText.stopped(differs, conversation: dinner, hint: .defaultStore) == "sync stopped for dinner: "
                + differs)
    }
}
