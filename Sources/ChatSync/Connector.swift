import ChatDomain

/// How the client opens a ``ByteStream`` to a server: by the server's scheme
/// (``network(caFile:)``: TLS for https, ``tcp`` for http), scripted streams in tests. The HTTP client and the live connection get their
/// streams only from here.
struct Connector: Sendable {
    /// Opens a stream to `server`, giving up at `deadline`.
    let open:
        @Sendable (_ server: ServerAddress, _ deadline: ContinuousClock.Instant) throws(TransportError) ->
            any ByteStream

    init(
        open:
            @escaping @Sendable (_ server: ServerAddress, _ deadline: ContinuousClock.Instant) throws(TransportError) ->
            any ByteStream
    ) {
        self.open = open
    }

    /// A plain TCP connection (``TCPConnection``).
    static let tcp = Connector(open: TCPConnection.open)

    /// What the server's scheme asks for: TLS for `https://` (``TLSConnection``, trusting the
    /// system store plus `caFile`), plain TCP for `http://`.
    static func network(caFile: String?) -> Connector {
        Connector { server, deadline throws(TransportError) in
            switch server.scheme {
            case .https: try TLSConnection.open(server, caFile: caFile, until: deadline)
            case .http: try TCPConnection.open(server, deadline)
            }
        }
    }
}

extension TCPConnection: ByteStream {
    /// Connects to `server` by `deadline`: ``Connector/tcp``.
    static func open(_ server: ServerAddress, _ deadline: ContinuousClock.Instant) throws(TransportError)
        -> any ByteStream
    {
        try connect(host: server.host, port: server.port, timeout: timeout(until: deadline))
    }

    func write(_ bytes: [UInt8], until deadline: ContinuousClock.Instant) throws(TransportError) {
        try send(bytes, timeout: Self.timeout(until: deadline))
    }

    func read(until deadline: ContinuousClock.Instant) throws(TransportError) -> ByteStreamRead {
        switch try receive(timeout: Self.timeout(until: deadline)) {
        case .bytes(let bytes): return .bytes(bytes)
        case .timedOut: return .timedOut
        case .closed: return .closed
        }
    }

    /// What is left until `deadline`, at least a millisecond (a poll of 0 would not wait at all).
    static func timeout(until deadline: ContinuousClock.Instant) -> Duration {
        max(deadline - .now, .milliseconds(1))
    }
}
