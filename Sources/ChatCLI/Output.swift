import ChatSystem
import Synchronization

/// Where a command writes: results to stdout, diagnostics to stderr, each with `write(2)`
/// (C's `stdout` is not concurrency-safe). Knows whether stdout is a terminal and whether
/// colour is wanted (a TTY, `NO_COLOR` unset, `TERM` not `dumb`).
struct Output: Sendable {
    var isTerminal: Bool
    /// Whether stderr is a terminal (progress lines go there only then).
    var isTerminalError: Bool
    var useColor: Bool

    init(environment: Environment) {
        isTerminal = TerminalDevice.isTerminal(StandardIO.output)
        isTerminalError = TerminalDevice.isTerminal(StandardIO.error)
        useColor = isTerminal && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
    }

    func print(_ text: String) {
        Self.write(1, text + "\n")
    }

    /// Writes a diagnostic line. Errors quote values from outside (file contents, server
    /// reasons), so the whole line goes through ``TerminalSafe`` (no styles are used on stderr).
    func error(_ text: String) {
        Self.write(2, TerminalSafe.visible(text) + "\n")
    }

    /// Text from outside made safe for this output: its control characters shown as notation,
    /// dimmed when colour is on (``TerminalSafe``).
    func safe(_ text: String) -> String {
        TerminalSafe.visible(text) { styled($0, .dim) }
    }

    static func write(_ fd: Int32, _ text: String) {
        write(fd, bytes: Array(text.utf8))
    }

    /// As ``write(_:_:)``, for text already in bytes.
    static func write(_ fd: Int32, bytes: [UInt8]) {
        do {
            try StandardIO.write(fd, bytes: bytes)
        } catch {
            // EPIPE: the reader went away (`| head`), nothing more to say. Anything else on
            // stdout (ENOSPC, EIO) is remembered: the command must not exit 0.
            if fd == StandardIO.output, error.errno != .brokenPipe {
                stdoutErrno.store(error.errno.rawValue, ordering: .relaxed)
            }
        }
    }

    private static let stdoutErrno = Atomic<Int32>(0)

    /// Why a write to standard output failed during this run (other than the reader leaving), if one did.
    static func standardOutputFailure() -> String? {
        let code = stdoutErrno.load(ordering: .relaxed)
        guard code != 0 else { return nil }
        return Errno(rawValue: code).description
    }

    /// `text` in an SGR style when colour is on.
    func styled(_ text: String, _ style: Style) -> String {
        useColor ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }

    enum Style: String {
        case dim = "2"
        case bold = "1"
        case red = "31"
        case yellow = "33"
        case blue = "34"
        case cyan = "36"
    }

    /// Reads standard input to its end or to `limit` bytes, whichever comes first; nil when it
    /// is a terminal (nothing was piped).
    static func readStandardInput(atMost limit: Int) throws(SystemError) -> [UInt8]? {
        if TerminalDevice.isTerminal(StandardIO.input) { return nil }
        return try StandardIO.read(StandardIO.input, atMost: limit)
    }
}
