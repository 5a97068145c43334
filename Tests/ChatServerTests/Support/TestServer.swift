import ChatDomain
@testable import ChatServer
import ChatStore
import ChatSystem
import Foundation
import Testing
import ChatTestSupport

/// The users and conversations every in-process test server starts with:
/// `ab` (alice, bob: one-to-one, empty), `group` (alice, bob, carol: empty);
/// dave has a token but is in neither.
enum TestData {
    static let users = ["alice", "bob", "carol", "dave"]

    static func token(_ user: String) -> String { "\(user)-token" }

    static func create(at path: String) throws {
        var tokens: [String: UserID] = [:]
        for user in users { tokens[token(user)] = try UserID(user) }
        try DataDirectory.create(at: path, users: UserTokens(tokens), conversations: [
            try ConversationID("ab"): ConversationInfo(title: "Alice and Bob", members: [try UserID("alice"), try UserID("bob")]),
            try ConversationID("group"): ConversationInfo(title: "Group", members: try ["alice", "bob", "carol"].map { try UserID($0) }),
        ])
    }
}

/// An in-process server on 127.0.0.1 with a free port and its own data directory, stopped
/// when the test lets go of it.
final class TestServer: @unchecked Sendable {
    let directory: TemporaryDirectory
    private(set) var server: ChatServer
    var port: Int { server.port }
    var configuration: ServerConfiguration { server.configuration }

    init(faults: Faults = .none, configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
        directory = try TemporaryDirectory()
        try TestData.create(at: directory.path)
        var configuration = ServerConfiguration(dataDirectory: directory.path, port: 0, faults: faults)
        configure(&configuration)
        server = try ChatServer(configuration: configuration)
        try server.start()
    }

    /// Stops the server and starts a new one on the same data directory (a new port),
    /// with other faults when given.
    func restart(faults: Faults? = nil) throws {
        server.stop()
        var configuration = server.configuration
        configuration.port = 0
        if let faults { configuration.faults = faults }
        server = try ChatServer(configuration: configuration)
        try server.start()
    }

    func client() throws -> TestHTTPClient {
        try TestHTTPClient(port: port)
    }

    /// A live socket for `user`, returned once the server has registered it (so events
    /// published afterwards reach it).
    func live(_ user: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> TestWebSocketClient {
        let before = server.liveSocketCount(for: try UserID(user))
        let socket = try TestWebSocketClient(port: port, token: TestData.token(user))
        try waitUntil("\(user)'s live socket is registered", sourceLocation: sourceLocation) {
            server.liveSocketCount(for: try UserID(user)) > before
        }
        return socket
    }

    deinit {
        server.stop()
    }
}

struct WaitTimedOut: Error, CustomStringConvertible {
    var what: String
    var description: String { "timed out waiting until \(what)" }
}

/// Polls `condition` every few milliseconds until it holds, failing after `timeoutMilliseconds`.
func waitUntil(_ what: String, timeoutMilliseconds: Int = 10_000, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () throws -> Bool) throws {
    let deadline = Clock.monotonicMilliseconds() + timeoutMilliseconds
    while Clock.monotonicMilliseconds() < deadline {
        if try condition() { return }
        SystemThread.sleep(milliseconds: 2)
    }
    Issue.record("timed out waiting until \(what)", sourceLocation: sourceLocation)
    throw WaitTimedOut(what: what)
}

/// Runs `count` bodies at once, each on a thread of its own, and returns their results in order.
func concurrently<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) throws -> T) throws -> [T] {
    let results = Lock<[Int: Result<T, any Error>]>([:])
    let group = DispatchGroup()
    let start = DispatchSemaphore(value: 0)
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            start.wait()
            let result = Result { try body(index) }
            results.withLock { $0[index] = result }
            group.leave()
        }
        thread.start()
    }
    for _ in 0..<count { start.signal() }
    group.wait()
    return try (0..<count).map { index in try results.withLock { $0[index] }!.get() }
}

