import ChatSystem
import Dispatch

/// Where the token comes from: a file (`--token-file`, a config's `token-file`), `CHATDIR_TOKEN`,
/// or a command (a config's `token-command`). Its description names the source, never the token.
enum TokenSource: Equatable, CustomStringConvertible {
    case file(String)
    case environment
    /// Run with `/bin/sh -c`; the first line it prints, trimmed, is the token.
    case command(String)

    /// How long a token command may run before it is killed: long enough for a passphrase
    /// typed into a pinentry, short enough that a hung command does not hold the worker.
    static let commandTimeout: Duration = .seconds(60)

    var description: String {
        switch self {
        case .file(let path): "token-file \(path)"
        case .environment: "CHATDIR_TOKEN"
        case .command(let command): "token-command `\(command)`"
        }
    }

    /// Whether asking again can give another token (after a 401): a file may have been
    /// rewritten, a command may fetch a fresh one; the environment stays what it was.
    var renews: Bool { self != .environment }

    /// Reads the token. Throws a ``CommandFailure`` that names the source and what is wrong,
    /// never the token: 77 a file others can read, 78 no usable token (a token file that is not
    /// there is a setting to fix, not a missing store: systemd's unit gives up on 78).
    func fetch(_ environment: Environment, timeout: Duration = commandTimeout) throws -> String {
        switch self {
        case .file(let file):
            let bytes = try SecretFile.read(
                file,
                missing: CommandFailure(
                    message:
                        "\(file): no such token file; create it (mode 0600) with the token alone in it, or name the file that holds it",
                    exitCode: 78))
            let text = String(decoding: bytes, as: UTF8.self).trimmingWhitespace()
            guard !text.isEmpty else {
                throw CommandFailure(message: "\(file) is empty; put the token in it", exitCode: 78)
            }
            if let problem = TokenProblem(text) {
                throw CommandFailure(
                    message: "\(file): the token \(problem); put only the token in the file, on one line", exitCode: 78)
            }
            return text
        case .environment:
            let token = environment["CHATDIR_TOKEN"]?.trimmingWhitespace() ?? ""
            guard !token.isEmpty else { throw CommandFailure(message: "CHATDIR_TOKEN is empty", exitCode: 78) }
            if let problem = TokenProblem(token) {
                throw CommandFailure(message: "CHATDIR_TOKEN \(problem); set it to the token alone", exitCode: 78)
            }
            return token
        case .command(let command):
            return try Self.run(command, timeout: timeout)
        }
    }

    /// ``fetch(_:timeout:)`` on a dispatch queue: a token command can take seconds, which must
    /// not be spent on the cooperative pool.
    func fetchOffPool(_ environment: Environment) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue(label: "chatdir.token").async {
                continuation.resume(with: Result { try fetch(environment) })
            }
        }
    }

    /// Runs a token command: status 0 and a first line of output, which is the token.
    private static func run(_ command: String, timeout: Duration) throws -> String {
        let result = CapturedProcess.run(["/bin/sh", "-c", command], timeout: timeout)
        let named = "token-command `\(command)`"
        if result.timedOut {
            throw CommandFailure(
                message: "\(named) did not finish within \(timeout.components.seconds) s and was stopped", exitCode: 78)
        }
        guard result.status == 0 else {
            let said =
                firstLine(result.standardError).map { ": \(TerminalSafe.visible($0))" }
                ?? " (and wrote nothing on stderr)"
            throw CommandFailure(message: "\(named) failed with exit status \(result.status)\(said)", exitCode: 78)
        }
        guard let token = firstLine(result.standardOutput) else {
            throw CommandFailure(
                message: "\(named) printed no token (its first line of output is the token)", exitCode: 78)
        }
        if let problem = TokenProblem(token) {
            throw CommandFailure(
                message: "\(named): the token \(problem); the command's first line must be the token alone",
                exitCode: 78)
        }
        return token
    }

    /// The first line of `bytes` that is not blank, trimmed; nil when there is none.
    private static func firstLine(_ bytes: [UInt8]) -> String? {
        String(decoding: bytes, as: UTF8.self).split(separator: "\n").lazy.map { String($0).trimmingWhitespace() }.first
        { !$0.isEmpty }
    }
}
