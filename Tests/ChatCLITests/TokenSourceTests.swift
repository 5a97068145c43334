import ChatTestSupport
import Foundation
import Testing

@testable import ChatCLI

/// `token-command`: its first line is the token; a failure is said with the command, its exit
/// status and its first line of stderr, never with what it printed on stdout.
@Suite(.ownThreads) struct TokenSourceTests {
    func failure(_ source: TokenSource, timeout: Duration = .seconds(60)) -> CommandFailure? {
        do {
            _ = try source.fetch([:], timeout: timeout)
            return nil
        } catch {
            return error as? CommandFailure
        }
    }

    @Test("the command's first line, trimmed, is the token")
    func success() throws {
        #expect(try TokenSource.command("printf '  alice-token  \\nsecond line\\n'").fetch([:]) == "alice-token")
    }

    @Test("exit 1 with stderr: the status and the first stderr line, not the token on stdout")
    func fails() throws {
        let error = try #require(
            failure(.command("echo s3cret-token; echo 'gpg: decryption failed' >&2; echo more >&2; exit 1")))
        #expect(error.exitCode == 78)
        #expect(
            error.message
                == "token-command `echo s3cret-token; echo 'gpg: decryption failed' >&2; echo more >&2; exit 1` failed with exit status 1: gpg: decryption failed"
        )
        let quiet = try #require(failure(.command("exit 4")))
        #expect(quiet.message.hasSuffix("failed with exit status 4 (and wrote nothing on stderr)"))
    }

    @Test("no output: no token, said so")
    func empty() throws {
        let error = try #require(failure(.command("true")))
        #expect(error.message == "token-command `true` printed no token (its first line of output is the token)")
        #expect(error.exitCode == 78)
    }

    @Test("a token with a space is refused without being shown")
    func badToken() throws {
        let error = try #require(failure(.command("echo 'abc def'")))
        #expect(error.message.contains("contains a control character or a space"))
        #expect(!error.message.replacingOccurrences(of: "echo 'abc def'", with: "").contains("abc def"))
    }

    @Test("a command that hangs is stopped at the timeout (60 s for chatdir; 1 s here)")
    func hangs() throws {
        let error = try #require(failure(.command("exec sleep 600"), timeout: .seconds(1)))
        #expect(error.message == "token-command `exec sleep 600` did not finish within 1 s and was stopped")
    }

    @Test("a stderr line with escape sequences is shown made safe")
    func safeStderr() throws {
        let error = try #require(failure(.command("printf '\\033[2Jboom\\n' >&2; exit 2")))
        #expect(error.message.hasSuffix("exit status 2: ^[[2Jboom"))
    }
}
