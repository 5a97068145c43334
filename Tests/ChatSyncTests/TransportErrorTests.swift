import ChatSystem
import Testing

@testable import ChatSync

/// How a failed system call on a connection becomes a ``TransportError``: its kind read from the
/// errno (never from words), its words the system error's own, the cause kept typed.
@Suite struct TransportErrorTests {
    @Test(
        "a call on an open connection: its kind from the errno",
        arguments: [
            (Errno.connectionReset, TransportError.Kind.closed), (.brokenPipe, .closed), (.notConnected, .closed),
            (.timedOut, .timedOut),
            (.connectionRefused, .unreachable), (.hostUnreachable, .unreachable), (.networkUnreachable, .unreachable),
            (.tooManyOpenFiles, .failed), (.ioError, .failed),
        ])
    func openConnection(_ errno: Errno, _ kind: TransportError.Kind) {
        let system = SystemError(operation: "recv", path: "", errno: errno)
        let error = TransportError(system)
        #expect(error.kind == kind)
        #expect(error.description == "recv: \(errno)")
        #expect(error.cause == .system(system))
    }

    @Test(
        "a connection that could not be made: unreachable unless the failure was local",
        arguments: [
            (
                Socket.ConnectError.unresolved(host: "nowhere", reason: "Name or service not known"),
                TransportError.Kind.unreachable, "cannot resolve nowhere: Name or service not known"
            ),
            (
                .unreachable(host: "127.0.0.1", port: 9, failure: .system(.connectionRefused)), .unreachable,
                "cannot connect to 127.0.0.1:9: Connection refused"
            ),
            (
                .unreachable(host: "10.0.0.1", port: 80, failure: .system(.hostUnreachable)), .unreachable,
                "cannot connect to 10.0.0.1:80: No route to host"
            ),
            (
                .unreachable(host: "10.0.0.1", port: 80, failure: .system(.networkUnreachable)), .unreachable,
                "cannot connect to 10.0.0.1:80: Network is unreachable"
            ),
            (
                .unreachable(host: "10.0.0.1", port: 80, failure: .system(.timedOut)), .unreachable,
                "cannot connect to 10.0.0.1:80: Connection timed out"
            ),
            (
                .unreachable(host: "10.0.0.1", port: 80, failure: .timedOut), .unreachable,
                "cannot connect to 10.0.0.1:80: timed out"
            ),
            (
                .unreachable(host: "127.0.0.1", port: 9, failure: .system(.tooManyOpenFiles)), .failed,
                "cannot connect to 127.0.0.1:9: Too many open files"
            ),
        ])
    func connecting(_ connect: Socket.ConnectError, _ kind: TransportError.Kind, _ words: String) {
        let error = TransportError(connect)
        #expect(error.kind == kind)
        #expect(error.description == words)
        #expect(error.cause == .connect(connect))
    }
}
