import ChatDomain
import ChatStore
import ChatSystem

/// The `chatdir` command line: finds the command, parses its arguments, runs it, and turns
/// every error into a message on stderr and a sysexits code. `main.swift` only calls ``run(_:environment:)``.
public enum Chatdir {
    static let commands: [any Command.Type] = [
        InitCommand.self, CreateCommand.self, ChatCommand.self, SendCommand.self, RetryCommand.self, CancelCommand.self,
        ViewCommand.self, ListCommand.self, ReadCommand.self, ReceiptsCommand.self,
        WatchCommand.self, SearchCommand.self, SyncCommand.self, StatusCommand.self, HistoryCommand.self,
        JoinCommand.self, LeaveCommand.self,
        CheckCommand.self, GitSetupCommand.self, MergeFileCommand.self, SeedCommand.self, DemoCommand.self,
        ServeCommand.self, ConfigCommand.self, LoginCommand.self, LogoutCommand.self,
        CompletionCommand.self, ManualCommand.self,
    ]

    public static let version = "0.1.0"

    static var help: String {
        var text = """
            chatdir: a chat client whose store is a directory of plain files.

            Usage: chatdir <command> [options]

            Commands:

            """
        let width = commands.map { $0.spec.name.count }.max() ?? 0
        for command in commands {
            text +=
                "  " + command.spec.name + String(repeating: " ", count: width - command.spec.name.count + 2)
                + command.spec.summary + "\n"
        }
        text += """

            Every command takes --help, and each that opens a store --store DIR (or $CHATDIR_STORE).
            Exit codes (sysexits; `chatdir manual` says when each comes): 0 ok, 1 nothing found (search)
            or a merge conflict (merge-file), 64 usage, 65 bad data, 66 no such store or conversation,
            69 unavailable (serve: the port is in use), 70 internal error, 73 cannot create, 74 I/O error,
            75 try again later, 76 the server broke the contract, 77 permission denied, 78 not configured
            (no server, no usable token, a broken config file).
            """
        return text
    }

    /// Says `name` is no command, with the nearest ones when it is a typo and one line of usage,
    /// not the whole overview; returns 64 (EX_USAGE).
    static func unknownCommand(_ name: String, output: Output) -> Int32 {
        let question = Suggestion.question(
            Suggestion.closest(to: name, among: commands.map { $0.spec.name } + ["--help", "--version"]))
        output.error(
            "chatdir: unknown command \(name.debugDescription)\(question.map { "; " + $0 } ?? "")\n"
                + "Usage: chatdir <command> [options]; `chatdir --help` lists the commands")
        return 64
    }

    /// Runs `chatdir` with `arguments` (without the program name); returns the exit code.
    public static func run(_ arguments: [String], environment: Environment) -> Int32 {
        let output = Output(environment: environment)
        guard let name = arguments.first else {
            output.error(help)
            return 64
        }
        if name == "--help" || name == "-h" || name == "help" {
            guard arguments.count > 1 else {
                output.print(help)
                return 0
            }
            guard let command = commands.first(where: { $0.spec.name == arguments[1] }) else {
                return unknownCommand(arguments[1], output: output)
            }
            output.print(command.spec.help)
            return 0
        }
        if name == "--version" {
            output.print("chatdir \(version)")
            return 0
        }
        guard let command = commands.first(where: { $0.spec.name == name }) else {
            return unknownCommand(name, output: output)
        }
        do {
            let parsed = try ParsedArguments(Array(arguments.dropFirst()), spec: command.spec)
            if parsed.wantsHelp {
                output.print(command.spec.help)
                return 0
            }
            var context = Context(output: output, environment: environment, arguments: parsed)
            // Only commands that open a store read the config: a broken one stops them (78)
            // rather than leave them on a store or token it did not mean.
            if command.spec.takesStore { context.config = try ConfigFile.load(environment) }
            let status = try command.run(context)
            if let failure = Output.standardOutputFailure() {
                // A result that never reached the reader (a full disk behind `> file`): saying
                // "ok" would let a script go on with a truncated result, or without the client
                // message ID of a message that is queued.
                output.error("chatdir \(name): cannot write the result to standard output: \(failure)")
                return status == 0 ? 74 : status
            }
            return status
        } catch let error as UsageError {
            output.error(error.report)
            return error.exitCode
        } catch let error as ConfigFileError {
            output.error("chatdir \(name): \(output.safe(error.message))")
            return error.exitCode
        } catch let error as CommandFailure {
            output.error("chatdir \(name): \(error.message)")
            return error.exitCode
        } catch let error as StoreError {
            output.error("chatdir \(name): \(error)")
            return error.exitCode
        } catch {
            output.error("chatdir \(name): \(error)")
            return 70 // EX_SOFTWARE: a bug, not the user's doing
        }
    }
}
