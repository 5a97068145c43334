/// What a shell may complete for one command, read off its ``CommandSpec`` so completion and
/// `--help` cannot drift apart.
struct CompletionWords: Sendable {
    var name: String
    var summary: String
    /// Every option, `--store` and `--help` included.
    var options: [CommandSpec.Option]
    /// Whether the first positional argument is a conversation ID (usage starts with `CONV` or `[CONV]`).
    var takesConversation: Bool
    /// Fixed words for the first positional argument (usage `bash|zsh|fish` or `[chatdir|store]`).
    var choices: [String]

    init(_ spec: CommandSpec) {
        name = spec.name
        summary = spec.summary
        options = spec.allOptions
        let firsts = spec.usage.compactMap { $0.split(separator: " ").first.map(String.init) }
            .map { $0.hasPrefix("[") && $0.hasSuffix("]") ? String($0.dropFirst().dropLast()) : $0 }
        takesConversation = firsts.contains("CONV")
        choices =
            firsts.first { $0.contains("|") && !$0.hasPrefix("-") }
            .map { $0.split(separator: "|").map(String.init) } ?? []
    }

    /// Options whose value is a directory (`DIR`), a file (`FILE`), or anything else (no completion).
    var directoryOptions: [String] { options.filter { $0.value == "DIR" }.map(\.name) }
    var fileOptions: [String] { options.filter { $0.value == "FILE" }.map(\.name) }
    var valueOptions: [String] { options.filter { $0.value != nil }.flatMap(\.spellings) }
    /// Every option as typed, long and short: `--ignore-case -i --limit -m`.
    var optionWords: [String] { options.flatMap(\.spellings) }

    /// The words of every command `chatdir` has, in `--help` order.
    static var all: [CompletionWords] { Chatdir.commands.map { CompletionWords($0.spec) } }
}

extension CommandSpec.Option {
    /// The long name, then the short one when there is one (`--limit`, `-m`).
    var spellings: [String] { [name] + (short.map { ["-\($0)"] } ?? []) }
}
