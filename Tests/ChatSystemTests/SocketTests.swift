import ChatSystem
import Dispatch
import Testing

@Suite struct SocketTests {
    /// Owns a listener that a test thread borrows (a closure cannot take a non-copyable value along).
    final class Listener: Sendable {
        let fd: FileDescriptor
        init(_ fd: consuming FileDescriptor) { self.fd = fd }
    }

    @Test(
        "accept with no connection waiting answers nil at once: poll may say readable for a connection that is gone by then"
    )
    func acceptWithNothingPendingDoesNotWait() throws {
        let listener = Listener(try Socket.listen(host: "127.0.0.1", port: 0))
        let answered = DispatchSemaphore(value: 0)
        let outcome = Lock<String>("")
        try SystemThread.detach {
            let text: String
            do {
                text = try Socket.accept(listener.fd, sendTimeoutMilliseconds: 1000) == nil ? "nil" : "a socket"
            } catch {
                text = "error \(error)"
            }
            outcome.withLock { $0 = text }
            answered.signal()
        }
        let inTime = answered.wait(timeout: .now() + 10) == .success
        if !inTime {
            // A blocking listener: wake the accept so the thread ends, then fail.
            Socket.shutdown(listener.fd.rawValue)
            _ = answered.wait(timeout: .now() + 10)
        }
        #expect(inTime, "accept waited for a connection instead of answering at once")
        #expect(outcome.withLock { $0 } == "nil")
    }

    @Test("a connection that was made is accepted, and the socket it gives talks to the client")
    func acceptGivesTheConnection() throws {
        let listener = try Socket.listen(host: "127.0.0.1", port: 0)
        let client = try Socket.connect(host: "127.0.0.1", port: try Socket.boundPort(listener))
        #expect(try Poll.wait([listener.rawValue], timeoutMilliseconds: 10_000)[0].readable)
        guard let accepted = try Socket.accept(listener, sendTimeoutMilliseconds: 1000) else {
            Issue.record("accept found nothing although poll said a connection was waiting")
            return
        }
        try Socket.sendAll(client.rawValue, Array("ping".utf8))
        #expect(try Poll.wait([accepted.rawValue], timeoutMilliseconds: 10_000)[0].readable)
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = try Socket.receive(accepted.rawValue, into: &buffer)
        #expect(String(decoding: buffer[0..<count], as: UTF8.self) == "ping")
    }

    @Test("binding a port another socket listens on fails with EADDRINUSE, named in the error")
    func addressInUse() throws {
        let first = try Socket.listen(host: "127.0.0.1", port: 0)
        let port = try Socket.boundPort(first)
        #expect(throws: SystemError(operation: "bind", path: "127.0.0.1:\(port)", errno: .addressInUse)) {
            _ = try Socket.listen(host: "127.0.0.1", port: port)
        }
    }

    @Test("connecting to a port nobody listens on says which address and why")
    func connectRefused() throws {
        let port: Int
        do {
            let probe = try Socket.listen(host: "127.0.0.1", port: 0)
            port = try Socket.boundPort(probe)
        }
        // The probe is closed: nothing listens there now (unless another test bound it in between).
        do {
            _ = try Socket.connect(host: "127.0.0.1", port: UInt16(port), timeoutMilliseconds: 10_000)
        } catch {
            #expect(error == .unreachable(host: "127.0.0.1", port: UInt16(port), failure: .system(.connectionRefused)))
            #expect(error.description == "cannot connect to 127.0.0.1:\(port): Connection refused")
        }
    }
}
