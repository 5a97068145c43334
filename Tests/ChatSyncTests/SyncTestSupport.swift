import ChatDomain
import ChatProtocol
import ChatServer
import ChatStore
@testable import ChatSync
import ChatSystem
import Foundation
import Testing
import ChatTestSupport

/// A reference server in this process, on a free port, with users alice, bob, carol (tokens
/// `<name>-token`) and conversations `ab` (alice, bob) and `group` (alice, bob, carol).
final class LocalServer: @unchecked Sendable {
    let directory: TemporaryDirectory
    private(set) var server: ChatServer
    var address: ServerAddress { ServerAddress(host: "127.0.0.1", port: UInt16(server.port)) }

    /// `inMemory`: its data in `/dev/shm` (see ``TemporaryDirectory/init(inMemory:)``).
    init(faults: String = "", inMemory: Bool = false) throws {
        directory = try TemporaryDirectory(inMemory: inMemory)
        var tokens: [String: UserID] = [:]
        for user in ["alice", "bob", "carol"] { tokens["\(user)-token"] = try UserID(user) }
        try DataDirectory.create(at: directory.path, users: UserTokens(tokens), conversations: [
            try ConversationID("ab"): ConversationInfo(title: "Alice and Bob", members: [try UserID("alice"), try UserID("bob")]),
            try ConversationID("group"): ConversationInfo(title: "Group", members: try ["alice", "bob", "carol"].map { try UserID($0) }),
        ])
        // ``restart(faults:)`` reuses the port: one no other test's connection can take meanwhile.
        let path = directory.path
        server = try startOnRestartablePort(isAddressInUse: { ($0 as? ServerError)?.isAddressInUse == true }) { port in
            try Self.start(path, port: port, faults: faults)
        }
    }

    private static func start(_ path: String, port: Int, faults: String) throws -> ChatServer {
        let server = try ChatServer(configuration: ServerConfiguration(dataDirectory: path, port: port, faults: try Faults(parsing: faults)))
        try server.start()
        return server
    }

    /// Stops and starts again on the same port and data, with other faults.
    func restart(faults: String = "") throws {
        let port = server.port
        server.stop()
        let path = directory.path
        server = try restartOnSamePort(port, isAddressInUse: { ($0 as? ServerError)?.isAddressInUse == true }) { port in
            try Self.start(path, port: port, faults: faults)
        }
    }

    func stop() { server.stop() }

    deinit { server.stop() }

    /// Every message the server holds in a conversation, ascending (read as `user` over HTTP).
    func messages(_ conversation: String, as user: String = "alice") async throws -> [Message] {
        let api = APIClient(server: address, token: "\(user)-token")
        var all: [Message] = []
        var after = 0
        while true {
            var page: MessagesPage?
            for _ in 0..<100 where page == nil {  // the server's own faults apply to this reader too
                do { page = try await api.messages(try ConversationID(conversation), .after(after), limit: 500) } catch let error as SyncError where error.isRetryable {}
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

func engine(_ store: Store, _ server: LocalServer, user: String? = nil, options: SyncEngine.Options = fastOptions) throws -> SyncEngine {
    try SyncEngine(store: store, server: server.address, token: "\(user ?? store.userID.rawValue)-token", options: options)
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

/// Waits until `condition` holds, checking every 20 ms, for at most `timeout`.
func waitUntil(timeout: Duration = .seconds(60), _ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("timed out waiting until \(what)", sourceLocation: sourceLocation)
}

/// One `chatdir sync` pass of `store` against `server` (the engine, and its lock, end with it).
func pass(_ store: Store, _ server: LocalServer, options: SyncEngine.Options = fastOptions) async throws -> SyncEngine.Report {
    await (try engine(store, server, options: options)).syncOnce()
}

/// `chatdir sync [--live] --store STORE --server SERVER` started as a child with `token` in
/// CHATDIR_TOKEN and its output discarded: a worker for a test to kill.
func startChatdirSync(store: Store, server: ServerAddress, token: String, live: Bool = false) throws -> TestProcess {
    let process = TestProcess()
    process.executableURL = builtProduct("chatdir")
    process.arguments = ["sync"] + (live ? ["--live"] : []) + ["--store", store.root, "--server", server.description]
    var environment = ProcessInfo.processInfo.environment
    environment["CHATDIR_TOKEN"] = token
    process.environment = environment
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    return process
}
