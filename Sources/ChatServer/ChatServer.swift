import ChatDomain
import ChatStore
import ChatSystem
import ChatTLS
import ChatWire
import Synchronization

/// The reference server of wire v1 (docs/PROTOCOL.md): `chatdir serve`, and an in-process
/// server for tests and the load tool.
///
/// ```
/// let server = try ChatServer(configuration: ServerConfiguration(dataDirectory: dir, port: 0))
/// try server.start()
/// print(server.url)        // http://127.0.0.1:<port>
/// server.stop()
/// ```
///
/// One thread accepts; each connection gets a thread of its own (blocking calls never touch the
/// cooperative pool). The state is the ``DataDirectory``, loaded at start; a reply to a write is
/// sent only once the write is durable.
public final class ChatServer: Sendable {
    public let configuration: ServerConfiguration
    /// The port actually bound (the one asked for, or a free one for port 0).
    public let port: Int
    /// `http://127.0.0.1:<port>`: what clients are given.
    public var url: String { "\(tls == nil ? "http" : "https")://\(configuration.host):\(port)" }
    /// The data as loaded: how many users and conversations, for the ready line.
    public var summary: String {
        "\(api.data.users.userIDs.count) users, \(api.data.conversations.count) conversations"
    }

    /// The listening socket until the accept thread takes it (that thread closes it as it ends);
    /// ``stop()`` closes it if the accept thread never ran.
    private let listener: Lock<FileDescriptor?>
    /// Readable once ``stop()`` was called: wakes the accept thread.
    private let stopEvent: WakePipe
    private let api: API
    private let hub: LiveHub
    private let state = Lock<State>(State())
    private let liveCounter = Atomic<UInt64>(0)
    private let silent = SilentConnections()
    /// The certificate and key when serving TLS.
    private let tls: TLS.Context?

    private struct State {
        var started = false
        var stopping = false
        var acceptRunning = false
        /// Open client sockets, shut down by ``stop()`` to wake their threads. Numbers, not
        /// ``FileDescriptor``s: each connection's thread owns its descriptor and closes it only
        /// after taking the number out of this set (under the lock), so every number here is
        /// still that connection's socket.
        var connections: Set<Int32> = []
    }

    /// Loads the data directory and binds the listening socket; nothing is served until ``start()``.
    /// - Throws: ``ServerError`` saying what is wrong with the data, the users file or the address.
    public init(configuration: ServerConfiguration) throws(ServerError) {
        self.configuration = configuration
        tls = try Self.tlsContext(configuration)
        let data = try DataDirectory(path: configuration.dataDirectory, usersFile: configuration.usersFile)
        hub = LiveHub(holdUntil: configuration.faults.liveHold)
        api = API(data: data, hub: hub, faults: configuration.faults)
        Socket.raiseDescriptorLimit()
        do {
            let socket = try Socket.listen(host: configuration.host, port: configuration.port)
            port = try Socket.boundPort(socket)
            stopEvent = try WakePipe()
            listener = Lock(socket)
        } catch {
            throw .socket(error)
        }
    }

    /// The TLS context for `--tls-cert`/`--tls-key`, refusing a key file others can read.
    private static func tlsContext(_ configuration: ServerConfiguration) throws(ServerError) -> TLS.Context? {
        guard let certificate = configuration.tlsCertificateFile, let key = configuration.tlsKeyFile else { return nil }
        guard let mode = Sys.mode(of: key) else { throw .tls("\(key): no such key file") }
        guard mode & 0o077 == 0 else {
            throw .tls("\(key) can be read by others (mode \(String(mode, radix: 8))); run `chmod 600 \(key)` first")
        }
        do { return try TLS.Context.server(certificateFile: certificate, keyFile: key) } catch {
            throw .tls(error.detail)
        }
    }

    /// Starts accepting connections on a thread of its own.
    public func start() throws(ServerError) {
        let ready = state.withLock { state -> Bool in
            guard !state.started, !state.stopping else { return false }
            state.started = true
            state.acceptRunning = true
            return true
        }
        guard ready else { return }
        do {
            try SystemThread.detach { [self] in acceptLoop() }
        } catch {
            state.withLock { $0.acceptRunning = false }
            throw .socket(error)
        }
    }

    /// Stops accepting, disconnects every client (live sockets see the connection drop), waits
    /// up to `timeoutMilliseconds` for connection threads to finish (a commit under way completes
    /// first), and releases the data directory. Safe to call more than once.
    public func stop(timeoutMilliseconds: Int = 5000) {
        // Shut the connections down while holding the lock: a connection leaves the set (under
        // the lock) before its descriptor is closed, so every number in the set is still this
        // server's socket. Outside the lock the number could already belong to someone else.
        state.withLock { state in
            state.stopping = true
            for fd in state.connections { Socket.shutdown(fd) }
        }
        stopEvent.signal()
        let deadline = Clock.monotonicMilliseconds() + timeoutMilliseconds
        while Clock.monotonicMilliseconds() < deadline {
            let busy = state.withLock { !$0.connections.isEmpty || $0.acceptRunning }
            if !busy { break }
            SystemThread.sleep(milliseconds: 2)
        }
        // Free the port at once (a restarted `serve` binds it again). The accept thread closed
        // it already if it ran; if it never did, the listener is still here.
        listener.withLock { $0.take() }?.close()
        api.data.releaseLock()
    }

    /// How many live sockets `user` has open right now (tests wait on it before publishing).
    public func liveSocketCount(for user: UserID) -> Int {
        hub.sessionCount(for: user)
    }

    // MARK: Accepting

    private func acceptLoop() {
        // The listener closes before `acceptRunning` goes false: once ``stop()`` sees the
        // thread gone, the port is free.
        if let socket = listener.withLock({ $0.take() }) {
            acceptConnections(on: socket)
            socket.close()
        }
        state.withLock { $0.acceptRunning = false }
    }

    private func acceptConnections(on listener: borrowing FileDescriptor) {
        while true {
            guard let ready = try? Poll.wait([listener.rawValue, stopEvent.readEnd], timeoutMilliseconds: -1) else {
                SystemThread.sleep(milliseconds: 10)
                continue
            }
            if ready[1].readable || state.withLock({ $0.stopping }) { return }
            guard ready[0].readable else { continue }
            let accepted: FileDescriptor?
            do {
                accepted = try Socket.accept(listener, sendTimeoutMilliseconds: configuration.sendTimeoutMilliseconds)
            } catch {
                // EMFILE and friends: back off a little instead of spinning on a full table.
                SystemThread.sleep(milliseconds: 10)
                continue
            }
            // Nothing to accept after all (the peer left between poll and accept): poll again.
            guard let socket = accepted else { continue }
            let fd = socket.rawValue
            let admitted = state.withLock { state -> Bool in
                // At the cap, a socket that never sent a byte makes room (see SilentConnections).
                guard !state.stopping, state.connections.count < configuration.maxConnections || silent.evictOldest()
                else { return false }
                state.connections.insert(fd)
                return true
            }
            guard admitted else {
                let busy = APIError(
                    status: .serviceUnavailable,
                    message: "the server is at its limit of \(configuration.maxConnections) connections; retry later",
                    headers: ["Retry-After": "1", "Connection": "close"])
                try? Socket.sendAll(fd, busy.response.serialized())
                socket.close()
                continue
            }
            silent.add(fd)
            let connection = Connection(
                fd: fd, configuration: configuration, api: api, hub: hub,
                liveNumber: { [self] in liveCounter.wrappingAdd(1, ordering: .relaxed).oldValue },
                heard: { [silent] in silent.remove(fd) },
                tls: tls
            )
            // The connection's thread owns the descriptor from here (a closure cannot take a
            // non-copyable value along, so it passes through a lock).
            let handoff = Lock<FileDescriptor?>(socket)
            do {
                try SystemThread.detach { [self] in
                    guard let socket = handoff.withLock({ $0.take() }) else { return }
                    connection.run()
                    finish(socket)
                }
            } catch {
                if let socket = handoff.withLock({ $0.take() }) { finish(socket) }
            }
        }
    }

    /// Forgets the connection, then closes it: out of the set first, so ``stop()`` never shuts
    /// down a number that already belongs to another file.
    private func finish(_ socket: consuming FileDescriptor) {
        silent.remove(socket.rawValue)
        state.withLock { _ = $0.connections.remove(socket.rawValue) }
        socket.close()
    }
}
