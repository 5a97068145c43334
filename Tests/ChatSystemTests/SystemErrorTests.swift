import ChatSystem
import Glibc
import Testing

@Suite struct SystemErrorTests {
    @Test(
        "named errno values are the kernel's numbers",
        arguments: [
            (Errno.noSpace, ENOSPC), (.ioError, EIO), (.interrupted, EINTR), (.wouldBlock, EAGAIN),
            (.wouldBlock, EWOULDBLOCK),
            (.accessDenied, EACCES), (.notPermitted, EPERM), (.addressInUse, EADDRINUSE),
            (.connectionAborted, ECONNABORTED),
            (.quotaExceeded, EDQUOT), (.noSuchFile, ENOENT), (.fileExists, EEXIST),
        ])
    func numbers(_ named: Errno, _ number: Int32) {
        #expect(named.rawValue == number)
    }

    @Test(
        "an error reads `call path: the system's words`, or `call: words` without a path",
        arguments: [
            (
                SystemError(operation: "fsync", path: "/s/c1/outbox", errno: .noSpace),
                "fsync /s/c1/outbox: No space left on device"
            ),
            (
                SystemError(operation: "bind", path: "127.0.0.1:80", errno: .accessDenied),
                "bind 127.0.0.1:80: Permission denied"
            ),
            (SystemError(operation: "recv", path: "", errno: .connectionReset), "recv: Connection reset by peer"),
        ])
    func description(_ error: SystemError, _ text: String) {
        #expect(error.description == text)
    }

    @Test("the questions callers ask are answered from the errno, not from numbers they compare")
    func questions() {
        #expect(SystemError(operation: "open", path: "/x", errno: .noSuchFile).isNotFound)
        #expect(SystemError(operation: "flock", path: "/x", errno: .wouldBlock).isWouldBlock)
        #expect(SystemError(operation: "open", path: "/x", errno: .notPermitted).isPermissionDenied)
        #expect(SystemError(operation: "open", path: "/x", errno: .accessDenied).isPermissionDenied)
        #expect(!SystemError(operation: "open", path: "/x", errno: .ioError).isPermissionDenied)
        #expect(SystemError(operation: "send", path: "", errno: .brokenPipe).isDisconnect)
    }
}
