#if canImport(Glibc)
import Glibc
#endif

/// Where a command writes: results to stdout, diagnostics to stderr, each with `write(2)`
/// (C's `stdout` is not concurrency-safe). Knows whether stdout is a terminal and whether
/// colour is wanted (a TTY, `NO_COLOR` unset, `TERM` not `dumb`).
struct Output: Sendable {
    var isTerminal: Bool
    /// Whether stderr is a terminal (progress lines go there only then).
    var isTerminalError: Bool
    var useColor: Bool

    init(environment: [String: String]) {
        isTerminal = isatty(1) == 1
        isTerminalError = isatty(2) == 1
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
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress.map { $0 + offset }, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                return  // EPIPE (the reader went away, `| head`): nothing more to say
            }
            offset += written
        }
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

    /// Reads all of standard input, or nil when it is a terminal (nothing was piped).
    static func readStandardInput() -> [UInt8]? {
        if isatty(0) == 1 { return nil }
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return result }
            result.append(contentsOf: buffer[0..<count])
        }
    }
}
