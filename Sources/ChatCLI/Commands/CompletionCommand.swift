/// `chatdir completion bash|zsh|fish`: prints the shell's completion script, generated from the
/// same command specs as `--help`.
enum CompletionCommand: Command {
    static let spec = CommandSpec(
        name: "completion",
        summary: "Print the shell completion script for bash, zsh or fish.",
        usage: ["bash|zsh|fish"],
        options: [],
        discussion: """
            The script completes commands, their options, directories and files for options that
            take one, and conversation IDs (the names under the store's conversations/) for
            commands that take CONV. It reads the store directory itself; it never runs chatdir.
            Install one (make install does all three):
              chatdir completion bash > ~/.local/share/bash-completion/completions/chatdir
              chatdir completion zsh > ~/.local/share/zsh/site-functions/_chatdir
              chatdir completion fish > ~/.local/share/fish/vendor_completions.d/chatdir.fish
            """,
        takesStore: false
    )

    static func run(_ context: Context) throws -> Int32 {
        let arguments = context.arguments
        try arguments.expectAtMost(1)
        let shell = try arguments.positional(0, "SHELL (bash, zsh or fish)")
        switch shell {
        case "bash": Output.write(1, BashCompletion.script())
        case "zsh": Output.write(1, ZshCompletion.script())
        case "fish": Output.write(1, FishCompletion.script())
        default: throw context.usage("no completion for shell \(shell.debugDescription); choose bash, zsh or fish")
        }
        return 0
    }
}
