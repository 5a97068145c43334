import ChatDomain
import ChatSystem
import ChatTestSupport
import Testing

@testable import ChatSync

#if canImport(Glibc)
    import Glibc
#endif

/// The plain TCP stream over real sockets on 127.0.0.1: its failures keep the system's errno
/// and are sorted by it, in the words users read before.
@Suite(.ownThreads) struct TCPConnectionTests {
    @Test("a peer that resets the connection is a closed connection, read from ECONNRESET, in the words of before")
    func reset() throws {
        let listener = try Socket.listen(host: "127.0.0.1", port: 0)
        let server = try ServerAddress("http://127.0.0.1:\(try Socket.boundPort(listener))")
        let stream = try TCPConnection.open(server, .now + .seconds(10))
        #expect(try Poll.wait([listener.rawValue], timeoutMilliseconds: 10_000)[0].readable)
        guard let peer = try Socket.accept(listener, sendTimeoutMilliseconds: 1000) else {
            Issue.record("accept found nothing although poll said a connection was waiting")
            return
        }
        try stream.write(Array("GET /v1/me HTTP/1.1\r\n\r\n".utf8), until: .now + .seconds(10))
        #expect(try Poll.wait([peer.rawValue], timeoutMilliseconds: 10_000)[0].readable)
        // SO_LINGER with a zero timeout: close sends RST instead of FIN.
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        #expect(
            setsockopt(peer.rawValue, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size)) == 0)
        peer.close()
        do {
            let read = try stream.read(until: .now + .seconds(10))
            Issue.record("read \(read) from a connection the peer reset")
        } catch {
            #expect(error.kind == .closed, "\(error)")
            #expect(error.description == "recv: Connection reset by peer")
            #expect(error.cause == .system(SystemError(operation: "recv", path: "", errno: .connectionReset)))
            #expect(SyncError.transport(error).description == "server unavailable: recv: Connection reset by peer")
        }
    }

    @Test("nothing listening is unreachable, in the words of before")
    func refused() throws {
        let port: Int
        do {
            let probe = try Socket.listen(host: "127.0.0.1", port: 0)
            port = try Socket.boundPort(probe)
        }
        // The probe is closed: nothing listens there now (unless another test bound it in between).
        let server = try ServerAddress("http://127.0.0.1:\(port)")
        do {
            _ = try TCPConnection.open(server, .now + .seconds(10))
            Issue.record("connected to a port nobody listens on")
        } catch {
            #expect(error.kind == .unreachable, "\(error)")
            #expect(error.description == "cannot connect to 127.0.0.1:\(port): Connection refused")
            #expect(
                error.cause
                    == .connect(
                        .unreachable(host: "127.0.0.1", port: UInt16(port), failure: .system(.connectionRefused))))
        }
    }
}
