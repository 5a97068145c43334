import ChatSystem

/// Where `chatdir login` gets the password: a file (`--password-file`), a prompt on the
/// terminal with echo off, or one line of standard input (scripts). The password is never an
/// argument (every user can read another's argv in /proc), never printed, never in an error.
enum PasswordInput {
    /// Longer than any password a person types or a manager makes; a longer line is not one.
    static let maxBytes = 4096

    /// How the read ended when it gave no password.
    enum Ending: Error {
        /// Ctrl-C, SIGTERM or SIGHUP at the prompt.
        case interrupted
    }

    /// The first line of `file`, which others must not be able to read (77, as for a token
    /// file): a password in a file others can read is no secret.
    static func fromFile(_ file: String) throws -> String {
        let bytes = try SecretFile.read(
            file, missing: CommandFailure(message: "\(file): no such password file", exitCode: 66))
        return try firstLine(bytes, from: file)
    }

    /// On a terminal: `prompt` on stderr, the line typed with echo off, the terminal put back
    /// as it was on every way out (Enter, Ctrl-D, Ctrl-C, SIGTERM, SIGHUP). Elsewhere: the first
    /// line of standard input, without a prompt.
    static func fromStandardInput(prompt: String) throws -> String {
        guard let settings = TerminalDevice.enterNoEchoMode(StandardIO.input) else {
            let bytes = try StandardIO.read(StandardIO.input, atMost: maxBytes + 2)
            return try firstLine(bytes, from: "standard input")
        }
        defer { settings.restore() }
        Output.write(StandardIO.error, prompt)
        let line = try readLineWatchingSignals()
        // Enter was not echoed either: end the prompt's line.
        Output.write(StandardIO.error, "\n")
        return try firstLine(line, from: "the terminal")
    }

    /// One line from the terminal in canonical mode, or ``Ending/interrupted`` when a signal
    /// comes first. The signals wake a poll instead of killing the process, so the caller's
    /// `defer` puts the terminal back.
    private static func readLineWatchingSignals() throws -> [UInt8] {
        let wake = try WakePipe()
        let watch = SignalWatch([.interrupt, .terminate, .hangUp]) { _ in wake.signal() }
        defer { watch.cancel() }
        var line: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while line.count <= maxBytes, !line.contains(UInt8(ascii: "\n")) {
            let ready = try Poll.wait([StandardIO.input, wake.readEnd], timeoutMilliseconds: -1)
            if ready[1].readyToRead { throw Ending.interrupted }
            guard ready[0].readyToRead else { continue }
            let count = try StandardIO.readSome(StandardIO.input, into: &buffer)
            if count == 0 { break }
            line += buffer[..<count]
        }
        return line
    }

    /// The first line of `bytes` without its line ending; refused when it is empty, longer
    /// than ``maxBytes`` or not UTF-8. The words name where it came from, never what it holds.
    private static func firstLine(_ bytes: [UInt8], from source: String) throws -> String {
        var line = bytes.prefix { $0 != UInt8(ascii: "\n") }
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        guard !line.isEmpty else {
            throw CommandFailure(message: "no password in \(source); its first line is the password", exitCode: 64)
        }
        guard line.count <= maxBytes else {
            throw CommandFailure(
                message: "the first line of \(source) is longer than \(maxBytes) bytes, too long for a password",
                exitCode: 64)
        }
        guard let password = String(validating: line, as: UTF8.self) else {
            throw CommandFailure(message: "the password in \(source) is not UTF-8 text", exitCode: 64)
        }
        return password
    }
}
