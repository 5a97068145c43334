import ChatDomain
import ChatSystem
import ChatTLS

/// A client TLS connection (https, and wss for the live socket) over ChatSystem's sockets and
/// ChatTLS: what ``Connector/network(caFile:)`` opens for an `https://` server.
///
/// The certificate is verified as browsers and curl do (TLS 1.2 or newer, the system trust store
/// plus an optional CA file, the host name or IP address checked); a refusal is
/// ``TransportError/Kind/tls``, which callers turn into ``SyncError/untrusted(_:)``.
final class TLSConnection: ByteStream, @unchecked Sendable {
    // The socket is only read after init; `shutdown` from another thread acts on the socket
    // alone (a blocked read then sees it closed), never on the TLS session. Both close with this object.
    private let socket: FileDescriptor
    private let session: TLS.Session

    private init(socket: consuming FileDescriptor, session: TLS.Session) {
        self.socket = socket
        self.session = session
    }

    /// Connects to `server`, trusting `caFile` besides the system store, and finishes the
    /// handshake by `deadline`.
    static func open(_ server: ServerAddress, caFile: String?, until deadline: ContinuousClock.Instant)
        throws(TransportError) -> any ByteStream
    {
        let context: TLS.Context
        do { context = try TLS.Context.client(caFile: caFile) } catch { throw transport(error) }
        let fd: FileDescriptor
        do {
            fd = try Socket.connect(
                host: server.host, port: server.port, timeoutMilliseconds: milliseconds(until: deadline))
        } catch {
            throw TransportError(error)
        }
        let raw = fd.rawValue
        let session: TLS.Session
        do {
            session = try TLS.Session(
                context: context, fd: raw, host: server.host, peer: "\(server.host):\(server.port)")
        } catch { throw transport(error) }
        let connection = TLSConnection(socket: fd, session: session)
        do { try session.handshake(until: deadline) } catch { throw transport(error) }
        return connection
    }

    func write(_ bytes: [UInt8], until deadline: ContinuousClock.Instant) throws(TransportError) {
        do { try session.write(bytes, until: deadline) } catch { throw Self.transport(error) }
    }

    func read(until deadline: ContinuousClock.Instant) throws(TransportError) -> ByteStreamRead {
        do {
            switch try session.read(until: deadline) {
            case .bytes(let bytes): return .bytes(bytes)
            case .timedOut: return .timedOut
            case .closed: return .closed
            }
        } catch {
            throw Self.transport(error)
        }
    }

    func shutdown() {
        Socket.shutdown(socket.rawValue)
    }

    private static func milliseconds(until deadline: ContinuousClock.Instant) -> Int {
        let parts = max(deadline - .now, .milliseconds(1)).components
        return Int(clamping: parts.seconds * 1000 + parts.attoseconds / 1_000_000_000_000_000)
    }

    /// ChatTLS's failure as the transport failure it is; a refused certificate or handshake is ``TransportError/Kind/tls``.
    private static func transport(_ failure: TLS.Failure) -> TransportError {
        switch failure.kind {
        case .untrusted, .handshake: TransportError(.tls, failure.detail)
        case .timedOut: TransportError(.timedOut, failure.detail)
        case .closed: TransportError(.closed, failure.detail)
        case .failed: TransportError(.failed, failure.detail)
        }
    }
}
