/// Everything `chatdir serve` can be told: where the data is, where to listen, which faults to
/// inject, and the limits that keep one bad client from hurting the others.
public struct ServerConfiguration: Sendable {
    /// The data directory (see ``DataDirectory``); the server writes into it.
    public var dataDirectory: String
    /// The users file; `<dataDirectory>/users.json` when nil.
    public var usersFile: String?
    /// IPv4 address to bind; loopback by default, since this is a reference server, not a backend.
    public var host = "127.0.0.1"
    /// TCP port; 0 picks a free one (see ``ChatServer/port``).
    public var port = 8080
    public var faults = Faults.none

    /// From the first byte of a request to its last: a client slower than this (slow loris)
    /// gets 408 and is disconnected. Milliseconds.
    public var requestTimeoutMilliseconds = 10_000
    /// How long a keep-alive connection may sit idle between requests. Milliseconds.
    public var idleTimeoutMilliseconds = 60_000
    /// How long a live socket may stay silent (clients ping every 30 s) before it is closed with 1001. Milliseconds.
    public var liveIdleTimeoutMilliseconds = 75_000
    /// How long one send may block on a client that does not read. Milliseconds.
    public var sendTimeoutMilliseconds = 10_000
    /// The largest request line plus headers; past it, 431.
    public var maxHeadSize = 16 * 1024
    /// The largest request body; past it, 413 (a 4096-character text is at most 16 KiB of UTF-8, plus JSON escapes).
    public var maxBodySize = 64 * 1024
    /// The largest message a live client may send; past it, close code 1009.
    public var maxLiveMessageSize = 64 * 1024
    /// Connections served at once (one thread each); past it, 503 and close.
    public var maxConnections = 1024
    /// HTTPS and WSS on the same port (`serve --tls-cert FILE --tls-key FILE`): the PEM
    /// certificate chain (the server's own first) and its PEM key, which must be mode 0600.
    public var tlsCertificateFile: String?
    public var tlsKeyFile: String?

    public init(dataDirectory: String, usersFile: String? = nil, port: Int = 8080, faults: Faults = .none) {
        self.dataDirectory = dataDirectory
        self.usersFile = usersFile
        self.port = port
        self.faults = faults
    }
}
