import ChatDomain
import ChatServer
import ChatStore
import Foundation

/// The users and conversations every ``TestServer`` starts with: alice, bob, carol and dave
/// (tokens `<name>-token`); `ab` (alice, bob: one-to-one, empty) and `group` (alice, bob, carol:
/// empty); dave has a token but is in neither.
public enum TestData {
    public static let users = ["alice", "bob", "carol", "dave"]

    public static func token(_ user: String) -> String { "\(user)-token" }

    /// Writes that data directory at `path`, as `chatdir serve --init` would.
    public static func create(at path: String) throws {
        var tokens: [String: UserID] = [:]
        for user in users { tokens[token(user)] = try UserID(user) }
        try DataDirectory.create(
            at: path, users: UserTokens(tokens),
            conversations: [
                try ConversationID("ab"): ConversationInfo(
                    title: "Alice and Bob", members: [try UserID("alice"), try UserID("bob")]),
                try ConversationID("group"): ConversationInfo(
                    title: "Group", members: try ["alice", "bob", "carol"].map { try UserID($0) }),
            ])
    }
}

/// The reference server (``ChatServer``, what `chatdir serve` runs) in this process, on
/// 127.0.0.1 with its own data directory (``TestData``, or a copy of SampleData/server), stopped
/// when the test lets go of it: the server a test of the client, the server or the command line
/// talks to.
///
/// It is the real server, so it answers as the wire contract says, faults included
/// (``init(faults:inMemory:sampleData:configure:)``). A test that needs answers no chatdir server gives
/// (a body that is not JSON, a trickle, a socket closed mid-head) uses `CannedServer` in
/// ChatSyncTests instead; one that needs the server as a separate process (its ready line,
/// signals, kill -9) runs `chatdir serve` with ``ChatdirProcess``.
public final class TestServer: @unchecked Sendable {
    public let directory: TemporaryDirectory
    /// The server's data directory: ``directory`` itself, or `server` in it for SampleData.
    public let data: String
    public private(set) var server: ChatServer
    public var port: Int { server.port }
    public var address: ServerAddress { ServerAddress(host: "127.0.0.1", port: UInt16(server.port)) }
    public var url: String { "http://127.0.0.1:\(server.port)" }
    public var configuration: ServerConfiguration { server.configuration }

    /// `inMemory`: its data in `/dev/shm` (see ``TemporaryDirectory/init(inMemory:)``);
    /// `sampleData`: SampleData/server copied (the users and conversations README shows) instead
    /// of ``TestData``; `configure` changes anything else (timeouts, connection limits) before it
    /// starts.
    public init(
        faults: Faults = .none, inMemory: Bool = false, sampleData: Bool = false,
        configure: (inout ServerConfiguration) -> Void = { _ in }
    ) throws {
        directory = try TemporaryDirectory(inMemory: inMemory)
        if sampleData {
            data = directory.file("server")
            try FileManager.default.copyItem(
                atPath: packageRoot.appendingPathComponent("SampleData/server").path, toPath: data)
        } else {
            data = directory.path
            try TestData.create(at: data)
        }
        var configuration = ServerConfiguration(dataDirectory: data, port: 0, faults: faults)
        configure(&configuration)
        // ``restart(faults:)`` reuses the port: one no other test's connection can take meanwhile.
        server = try startOnRestartablePort(isAddressInUse: Self.isAddressInUse) { port in
            configuration.port = port
            return try Self.start(configuration)
        }
    }

    /// ``init(faults:inMemory:sampleData:configure:)`` with the faults as `chatdir serve --faults`
    /// takes them.
    public convenience init(faults: String, inMemory: Bool = false, sampleData: Bool = false) throws {
        try self.init(faults: try Faults(parsing: faults), inMemory: inMemory, sampleData: sampleData)
    }

    /// Stops the server and starts it again on the same port and data directory, with `faults`
    /// (none unless given): what a client sees as the server going away and coming back.
    public func restart(faults: Faults = .none) throws {
        let port = server.port
        server.stop()
        var configuration = server.configuration
        configuration.faults = faults
        server = try restartOnSamePort(port, isAddressInUse: Self.isAddressInUse) { port in
            configuration.port = port
            return try Self.start(configuration)
        }
    }

    /// ``restart(faults:)`` with the faults as `chatdir serve --faults` takes them.
    public func restart(faults: String) throws {
        try restart(faults: try Faults(parsing: faults))
    }

    public func stop() { server.stop() }

    deinit { server.stop() }

    private static func start(_ configuration: ServerConfiguration) throws -> ChatServer {
        let server = try ChatServer(configuration: configuration)
        try server.start()
        return server
    }

    private static func isAddressInUse(_ error: any Error) -> Bool { (error as? ServerError)?.isAddressInUse == true }
}
