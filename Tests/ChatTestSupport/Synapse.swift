import Foundation
import Glibc

/// A throwaway Synapse homeserver on loopback, for the Matrix tests: its own directory, its
/// own SQLite database, a port of its own, open registration and no rate limits; killed when
/// released (or by ``stop()``).
///
/// Synapse comes from PyPI (`scripts/install-synapse.sh` installs the pinned version into a
/// virtual environment; `.ci/run` runs it). Where it is missing, Matrix suites are skipped with
/// ``notInstalled`` as the reason, as the tmux and strace suites are, except under CI
/// (`CI=true`), which installs it: there ``SynapseHarnessTests`` fails the run instead.
///
/// The other members of a room are `scripts/matrix-peer.py` (``peer(_:_:)``): Python's standard
/// library speaking the client-server API, sharing no code with chatdir.
///
///     let synapse = try Synapse.start()
///     let bob = try synapse.register("bob")
///     let room = try synapse.peer(bob, ["create-room", "--name", "Dinner"])["room_id"] as? String
public final class Synapse: @unchecked Sendable {
    /// A registered user: its Matrix user ID, password and the peer device's access token.
    public struct User: Sendable {
        public var localpart: String
        public var userID: String
        public var password: String
        /// The token of the device `register` made (device ID ``deviceID``), for ``peer(_:_:)``.
        public var accessToken: String
        public var deviceID: String
    }

    /// The virtual environment Synapse is installed in (`$CHATDIR_SYNAPSE_VENV`, else where
    /// `scripts/install-synapse.sh` puts it).
    public static let virtualEnvironment: String = {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["CHATDIR_SYNAPSE_VENV"], !path.isEmpty { return path }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.cache/chatdir/synapse-venv"
    }()

    public static var python: String { virtualEnvironment + "/bin/python" }

    /// Whether the virtual environment's Python can import Synapse.
    public static let isInstalled: Bool = {
        guard FileManager.default.isExecutableFile(atPath: python) else { return false }
        let result = try? spawnAndWait(
            python, ["-c", "import synapse"], environment: ProcessInfo.processInfo.environment)
        return result?.status == 0 && result?.signaled == false
    }()

    /// The reason a Matrix suite gives when it is skipped.
    public static let notInstalled =
        "Synapse is not installed: scripts/install-synapse.sh installs it (.ci/run does)"

    /// The stdlib-only Matrix client the tests use as other members.
    public static let peerScript = packageRoot.appendingPathComponent("scripts/matrix-peer.py").path

    /// The homeserver's name: user IDs are `@name:localhost`.
    public let serverName = "localhost"
    public let port: Int
    /// The base URL clients are given, e.g. `http://127.0.0.1:12345`.
    public var url: String { "http://127.0.0.1:\(port)" }
    /// Its configuration, database, media and log.
    public let directory: TemporaryDirectory
    private let process: TestProcess
    private let stopped = NSLock()
    private var isStopped = false
    /// Whether this one's ``stop()`` gives back the slot ``start(configuration:)`` took (not
    /// so for an attempt that failed: `start` gives it back then). Guarded by `stopped`.
    private var holdsSlot = false

    /// Starts a homeserver and returns once it answers `/_matrix/client/versions` (a few seconds;
    /// up to two minutes on a loaded machine). Throws with the tail of its log when it ends first.
    /// `configuration` lines (YAML, unindented) are added to the harness's own, e.g.
    /// `refreshable_access_token_lifetime: 5s` to see tokens expire within a test.
    /// Waits its turn first: at most ``concurrentLimit`` homeservers of this test process run at once.
    public static func start(configuration: [String] = []) throws -> Synapse {
        slots.wait()
        do {
            let directory = try TemporaryDirectory()
            try writeSigningKey(to: directory.file("signing.key"))
            let synapse = try startOnRestartablePort(isAddressInUse: { $0 is AddressInUse }) { port in
                try Synapse(directory: directory, port: port, extraConfiguration: configuration)
            }
            synapse.stopped.withLock { synapse.holdsSlot = true }
            return synapse
        } catch {
            slots.signal()
            throw error
        }
    }

    /// How many homeservers may run at once. Each Synapse takes seconds of CPU to start, and
    /// the parallel suite started one for every Matrix test at the same moment: on two cores
    /// the rest of the suite slowed until a test that takes 1.5 s alone missed its 60 s wait.
    /// Tests waiting here wait for a homeserver, never against a clock. At least 2: one test
    /// runs two homeservers at once.
    public static let concurrentLimit = 3
    private static let slots = DispatchSemaphore(value: concurrentLimit)

    private init(directory: TemporaryDirectory, port: Int, extraConfiguration: [String]) throws {
        self.directory = directory
        self.port = port
        let configuration = directory.file("homeserver-\(port).yaml")
        let text =
            Self.configuration(directory: directory.path, port: port)
            + extraConfiguration.map { $0 + "\n" }.joined()
        try text.write(toFile: configuration, atomically: true, encoding: .utf8)
        let logPath = directory.file("homeserver.log")
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        defer { try? log.close() }
        log.seekToEndOfFile()
        process = TestProcess()
        process.executableURL = URL(fileURLWithPath: Self.python)
        process.arguments = ["-m", "synapse.app.homeserver", "-c", configuration]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log
        // Killed when released; the watchdog is for a test process that never lets go.
        process.deadline = .seconds(3600)
        try process.run()
        let ready = try spawnAndWait(
            "/usr/bin/env",
            [
                "python3", Self.peerScript, "--server", url, "wait", "--pid", String(process.processIdentifier),
                "--timeout", "120",
            ], environment: ProcessInfo.processInfo.environment)
        guard ready.status == 0, !ready.signaled else {
            stop()
            let log = self.log
            if log.contains("Address already in use") { throw AddressInUse() }
            let tail = log.split(separator: "\n").suffix(15).joined(separator: "\n")
            throw Failure(
                "Synapse on port \(port) did not start: \(String(decoding: ready.stderr, as: UTF8.self))\(tail)")
        }
    }

    deinit { stop() }

    /// Kills the homeserver (SIGKILL: a child started from a thread with SIGTERM blocked inherits
    /// the mask; the database is a throwaway) and waits for it.
    public func stop() {
        let (first, slot) = stopped.withLock {
            defer { isStopped = true }
            return (!isStopped, holdsSlot)
        }
        guard first else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        if slot { Self.slots.signal() }
    }

    /// Everything the homeserver logged so far (for a failing test's message).
    public var log: String {
        (try? String(contentsOfFile: directory.file("homeserver.log"), encoding: .utf8)) ?? ""
    }

    /// Registers `localpart` (password `pw-LOCALPART` unless given) with a device `PEER` for the
    /// peer's requests.
    public func register(_ localpart: String, password: String? = nil) throws -> User {
        let password = password ?? "pw-\(localpart)"
        let answer = try run(token: nil, ["register", localpart, password])
        guard let userID = answer["user_id"] as? String, let token = answer["access_token"] as? String,
            let device = answer["device_id"] as? String
        else { throw Failure("register \(localpart): unexpected answer \(answer)") }
        return User(localpart: localpart, userID: userID, password: password, accessToken: token, deviceID: device)
    }

    /// A new access token of `user`'s for device `deviceID` (another device of the account).
    public func login(_ user: User, deviceID: String) throws -> String {
        let answer = try run(token: nil, ["login", user.localpart, user.password, "--device", deviceID])
        guard let token = answer["access_token"] as? String else {
            throw Failure("login \(user.localpart): unexpected answer \(answer)")
        }
        return token
    }

    /// Runs `matrix-peer.py` as `user` (see its `--help`) and returns its answer, one JSON object.
    /// Throws with the server's refusal when the command fails.
    @discardableResult
    public func peer(_ user: User, _ arguments: [String]) throws -> [String: Any] {
        try run(token: user.accessToken, arguments)
    }

    private func run(token: String?, _ arguments: [String]) throws -> [String: Any] {
        var environment = ProcessInfo.processInfo.environment
        environment["MATRIX_TOKEN"] = token
        let result = try spawnAndWait(
            "/usr/bin/env", ["python3", Self.peerScript, "--server", url] + arguments, environment: environment,
            deadline: .seconds(300))
        let stderr = String(decoding: result.stderr, as: UTF8.self)
        guard result.status == 0, !result.signaled else {
            throw Failure("matrix-peer.py \(arguments.joined(separator: " ")): exit \(result.status): \(stderr)")
        }
        guard let object = try? JSONSerialization.jsonObject(with: result.stdout) as? [String: Any] else {
            throw Failure(
                "matrix-peer.py \(arguments.first ?? ""): not a JSON object: \(String(decoding: result.stdout, as: UTF8.self))"
            )
        }
        return object
    }

    // MARK: - Configuration

    /// A complete configuration (no `--generate-config`, which costs seconds): loopback only,
    /// no federation key server, no presence, open registration without verification, and every
    /// rate limit out of reach so tests measure chatdir, not Synapse's throttling.
    private static func configuration(directory: String, port: Int) -> String {
        let unlimited = "{per_second: 9999, burst_count: 9999}"
        return """
            server_name: localhost
            pid_file: \(directory)/homeserver.pid
            listeners:
              - port: \(port)
                bind_addresses: ['127.0.0.1']
                type: http
                tls: false
                x_forwarded: false
                resources: [{names: [client], compress: false}]
            database: {name: sqlite3, args: {database: \(directory)/homeserver.db}}
            media_store_path: \(directory)/media
            signing_key_path: \(directory)/signing.key
            trusted_key_servers: []
            suppress_key_server_warning: true
            report_stats: false
            registration_shared_secret: chatdir-tests
            macaroon_secret_key: chatdir-tests-macaroon
            form_secret: chatdir-tests-form
            enable_registration: true
            enable_registration_without_verification: true
            presence: {enabled: false}
            rc_message: \(unlimited)
            rc_registration: \(unlimited)
            rc_login: {address: \(unlimited), account: \(unlimited), failed_attempts: \(unlimited)}
            rc_joins: {local: \(unlimited), remote: \(unlimited)}
            rc_joins_per_room: \(unlimited)
            rc_invites: {per_room: \(unlimited), per_user: \(unlimited), per_issuer: \(unlimited)}
            rc_room_creation: \(unlimited)
            rc_3pid_validation: \(unlimited)
            rc_presence: {per_user: \(unlimited)}

            """
    }

    /// An ed25519 signing key in Synapse's file format (`ed25519 VERSION SEED`, the 32-byte seed
    /// in unpadded base64): any 32 random bytes are a key.
    private static func writeSigningKey(to path: String) throws {
        var generator = SystemRandomNumberGenerator()
        let seed = Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        let text = seed.base64EncodedString().replacingOccurrences(of: "=", with: "")
        try "ed25519 a_test \(text)\n".write(toFile: path, atomically: true, encoding: .utf8)
    }

    private struct AddressInUse: Error {}

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }
}
