import ChatDomain
import ChatServer
import ChatStore
import ChatSync
import ChatSystem
import Foundation

/// An in-process reference server (port 0) for the sync workloads, on a data directory made
/// for them:
///
/// - `c1` (bob, alice): `history` messages, written by the fixture generator in the store
///   format the server loads (what `chatdir seed` writes, without the manifest);
/// - `drain` (carol, dave): empty, for the outbox drain;
/// - `live` (dave, erin) and `posts` (eight posters): empty, for live latency and POSTs/s;
/// - `fanout` (f00…f49): empty, for live fan-out;
/// - `burst0`… (dave and r0, dave and r1, …): empty, one per live burst, each with a receiver
///   of its own so one burst's receipts never reach the next one's socket.
///
/// Users `<name>-token` for alice, bob, carol, dave, erin, p0…p7, f00…f49 and r0….
final class ServerFixture {
    let directory: String
    let server: ChatServer
    var address: ServerAddress {
        ServerAddress(host: "127.0.0.1", port: UInt16(server.port), scheme: caFile == nil ? .http : .https)
    }
    /// The throwaway CA that signed the server's certificate, when the fixture serves TLS.
    let caFile: String?
    /// The engine options every workload's client uses: the CA file over TLS.
    var clientOptions: SyncEngine.Options {
        var options = SyncEngine.Options()
        options.caFile = caFile
        return options
    }

    static func id(_ text: String) -> ConversationID {
        guard let id = try? ConversationID(text) else { preconditionFailure("\(text) is a valid conversation ID") }
        return id
    }

    static func user(_ text: String) -> UserID {
        guard let id = try? UserID(text) else { preconditionFailure("\(text) is a valid user ID") }
        return id
    }

    static let posters = (0..<8).map { user("p\($0)") }
    static let fanOutMembers = (0..<50).map { user($0 < 10 ? "f0\($0)" : "f\($0)") }
    static let burstReceivers = (0..<5).map { user("r\($0)") }
    static func burstConversation(_ index: Int) -> ConversationID { id("burst\(index)") }

    /// A server of `history` messages in c1; over TLS (https, wss) with `tls`, its certificate
    /// for 127.0.0.1 made beside `directory` by the openssl command line.
    /// `faults`: what the server injects (the burst's `live-hold`).
    init(directory: String, history: Int, tls: Bool = false, faults: Faults = .none) throws {
        self.directory = directory
        Subprocess.removeTree(directory)
        caFile = tls ? try Self.makeCertificates(in: directory + "-tls") : nil
        var generator = FixtureGenerator(userID: Self.user("bob"))
        generator.conversations = 1
        generator.messagesPerConversation = history
        generator.members = 2
        try generator.generate(at: directory)
        // The generator made a user's store; the server's data directory has no manifest.
        try FileManager.default.removeItem(atPath: directory + "/" + StoreLayout.manifest)
        var tokens: [String: UserID] = [:]
        for user in ["alice", "bob", "carol", "dave", "erin"].map(Self.user) + Self.posters + Self.fanOutMembers
            + Self.burstReceivers
        { tokens["\(user)-token"] = user }
        try DataDirectory.create(
            at: directory, users: UserTokens(tokens),
            conversations: [
                Self.id("drain"): ConversationInfo(title: "Drain", members: [Self.user("carol"), Self.user("dave")]),
                Self.id("live"): ConversationInfo(title: "Live", members: [Self.user("dave"), Self.user("erin")]),
                Self.id("posts"): ConversationInfo(title: "Posts", members: Self.posters),
                Self.id("fanout"): ConversationInfo(title: "Fan-out", members: Self.fanOutMembers),
            ].merging(
                Self.burstReceivers.enumerated().map { index, receiver in
                    (
                        Self.burstConversation(index),
                        ConversationInfo(title: "Burst \(index)", members: [Self.user("dave"), receiver])
                    )
                }, uniquingKeysWith: { first, _ in first }))
        server = try Self.start(directory, tls: tls, faults: faults)
    }

    /// A server whose data directory is a copy of `cached` (made by ``manyConversations(_:cache:log:)``),
    /// at `directory`: the copy is the one the server writes to, so the cache stays as generated.
    init(copying cached: String, to directory: String) throws {
        self.directory = directory
        Subprocess.removeTree(directory)
        caFile = nil
        _ = try Subprocess.capture(["/bin/cp", "-a", cached, directory])
        // Write back what the copy dirtied (70,000 files and directories for 10,000
        // conversations) now: the client's first group commit's syncfs would pay for it.
        sync()
        server = try Self.start(directory, tls: false, faults: .none)
    }

    private static func start(_ directory: String, tls: Bool, faults: Faults) throws -> ChatServer {
        var configuration = ServerConfiguration(dataDirectory: directory, port: 0, faults: faults)
        if tls {
            configuration.tlsCertificateFile = directory + "-tls/server.pem"
            configuration.tlsKeyFile = directory + "-tls/server.key"
        }
        let server = try ChatServer(configuration: configuration)
        try server.start()
        return server
    }

    /// A data directory of `count` one-message conversations `c1`…`cN` of bob and alice (the
    /// fixture generator's, one message each, positions where some of bob's are already
    /// delivered), made once under `cache` and reused; its path. Generated in /dev/shm when there
    /// is one (a durable write per file on disk would take minutes), then copied.
    static func manyConversations(_ count: Int, cache: String, log: (String) -> Void) throws -> String {
        let path = cache + "/server-conversations-\(count)"
        let paramsFile = path + ".params"
        let wanted =
            "FixtureGenerator bob, \(count) conversations of 1 message, 2 members, seed 42 (format \(StoreLayout.formatVersion))\n"
        if (try? String(contentsOfFile: paramsFile, encoding: .utf8)) == wanted, Sys.kind(of: path) == .directory {
            return path
        }
        Subprocess.removeTree(paramsFile)
        Subprocess.removeTree(path)
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        let scratchRoot = Sys.kind(of: "/dev/shm") == .directory ? "/dev/shm" : cache
        let scratch = scratchRoot + "/chatdir-bench-conversations-\(getpid())"
        Subprocess.removeTree(scratch)
        defer { Subprocess.removeTree(scratch) }
        log(
            "writing a server data directory of \(count) one-message conversations into \(path) (once; reused by later runs)"
        )
        var generator = FixtureGenerator(userID: user("bob"))
        generator.conversations = count
        generator.messagesPerConversation = 1
        generator.members = 2
        try generator.generate(at: scratch)
        try FileManager.default.removeItem(atPath: scratch + "/" + StoreLayout.manifest)
        var tokens: [String: UserID] = [:]
        for member in generator.memberIDs() { tokens["\(member)-token"] = member }
        try DataDirectory.create(at: scratch, users: UserTokens(tokens), conversations: [:])
        let temporary = path + ".making-\(getpid())"
        Subprocess.removeTree(temporary)
        _ = try Subprocess.capture(["/bin/cp", "-a", scratch, temporary])
        try FileManager.default.moveItem(atPath: temporary, toPath: path)
        try wanted.write(toFile: paramsFile, atomically: true, encoding: .utf8)
        // Write back what the copy dirtied now, not under the workload's commits.
        sync()
        return path
    }

    /// A CA and a server certificate it signs for 127.0.0.1 (ECDSA P-256), in `path`; the CA's file.
    static func makeCertificates(in path: String) throws -> String {
        let newKey = "-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes"
        let script = """
            set -e; rm -rf '\(path)'; mkdir -p '\(path)'; cd '\(path)'
            openssl req -x509 \(newKey) -keyout ca.key -out ca.pem -days 1 -subj '/CN=chatdir-bench CA'
            openssl req \(newKey) -keyout server.key -out server.csr -subj '/CN=chatdir-bench server'
            printf 'subjectAltName=IP:127.0.0.1\\n' > san.ext
            openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -set_serial 1 -days 1 -extfile san.ext -out server.pem
            chmod 600 server.key
            """
        guard ChildProcess.run(["/bin/sh", "-c", "(" + script + ") >/dev/null 2>&1"]) == 0 else {
            throw Subprocess.Failure(description: "the TLS rows need the openssl command line to make a certificate")
        }
        return path + "/ca.pem"
    }

    /// A new, empty client store for `user` under `path`, pointing at this server.
    func clientStore(at path: String, user: String) throws -> Store {
        Subprocess.removeTree(path)
        return try Store.create(at: path, manifest: Manifest(userID: Self.user(user), server: address))
    }

    func stop() {
        server.stop()
    }
}
