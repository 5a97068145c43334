import ChatDomain
import ChatProtocol
import ChatServer
import ChatStore
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatSync

/// What tests of the client add to the shared ``TestServer``: its history as a client reads it.
extension TestServer {
    /// Every message the server holds in a conversation, ascending (read as `user` over HTTP).
    func messages(_ conversation: String, as user: String = "alice") async throws -> [Message] {
        let api = APIClient(server: address, token: "\(user)-token")
        var all: [Message] = []
        var after = 0
        while true {
            var page: MessagesPage?
            for _ in 0..<100 where page == nil { // the server's own faults apply to this reader too
                do {
                    page = try await api.messages(try ConversationID(conversation), .after(after), limit: 500)
                } catch let error as SyncError where error.isRetryable {}
            }
            guard let page else { throw SyncError.temporary("the test server kept failing", retryAfter: nil) }
            all += page.items
            guard let last = page.items.last, page.hasMore else { return all }
            after = last.sequence
        }
    }
}

/// A client store for `user` on a fresh directory.
func clientStore(_ user: String, in directory: TemporaryDirectory, name: String? = nil) throws -> Store {
    try Store.create(at: directory.path + "/" + (name ?? user), manifest: Manifest(userID: try UserID(user)))
}

func engine(_ store: Store, _ server: TestServer, user: String? = nil, options: SyncEngine.Options = fastOptions) throws
    -> SyncEngine
{
    try SyncEngine(
        store: store, server: server.address, token: "\(user ?? store.userID.rawValue)-token", options: options)
}

/// Short backoff so tests that meet faults finish quickly (the rules are the same).
let fastOptions: SyncEngine.Options = {
    var options = SyncEngine.Options()
    options.backoff = Backoff(initial: .milliseconds(20), maximum: .milliseconds(200))
    options.attemptsPerPass = 50
    options.gapGrace = .milliseconds(100)
    options.outboxPollInterval = .milliseconds(20)
    options.idleCatchUp = .milliseconds(500)
    // A pass's time budget is a deadline on the wall clock: on a machine running the whole suite
    // at once a pass of a few dozen requests took over 30 s. Tests of the budget set their own.
    options.passBudget = .seconds(300)
    return options
}()

/// Every message stored in a conversation of `store`, ascending.
func storedMessages(_ store: Store, _ conversation: String) throws -> [Message] {
    let handle = store.conversation(try ConversationID(conversation))
    var all: [Message] = []
    for range in try handle.segmentRanges() { all += try handle.readSegment(range) }
    return all
}

/// One `chatdir sync` pass of `store` against `server` (the engine, and its lock, end with it).
func pass(_ store: Store, _ server: TestServer, options: SyncEngine.Options = fastOptions) async throws
    -> SyncEngine.Report
{
    await (try engine(store, server, options: options)).syncOnce()
}

/// `chatdir sync [--live] --store STORE --server SERVER` started as a child with `token` in
/// CHATDIR_TOKEN and its output discarded: a worker for a test to kill.
func startChatdirSync(store: Store, server: ServerAddress, token: String, live: Bool = false) throws -> TestProcess {
    try ChatdirProcess.start(
        ["sync"] + (live ? ["--live"] : []) + ["--store", store.root, "--server", server.description],
        environment: ["CHATDIR_TOKEN": token],
        standardInput: nil)
}
