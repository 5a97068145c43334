/// What a command accepts: its options and positional arguments, and the help text built from them.
struct CommandSpec: Sendable {
    struct Option: Sendable {
        var name: String
        /// Placeholder of the value (`N`, `DIR`); nil for a flag.
        var value: String?
        var help: String
        /// The one-letter form grep users type (`-i` for `--ignore-case`); flags combine (`-ic`).
        var short: Character? = nil

        /// How help and the man page name it: `-i, --ignore-case` or `--limit N`.
        var label: String {
            (short.map { "-\($0), " } ?? "") + name + (value.map { " " + $0 } ?? "")
        }
    }

    var name: String
    var summary: String
    /// Usage lines after `chatdir <name>`, like `CONV TEXT...`.
    var usage: [String]
    var options: [Option]
    /// Paragraphs after the options: details and examples.
    var discussion: String = ""
    /// Whether the command opens a store (and so takes `--store`); `seed`, `demo` and `serve`
    /// do not, and refuse `--store` rather than list it and ignore it.
    var takesStore = true

    /// `--store DIR`, which every command that opens a store takes.
    static let store = Option(
        name: "--store", value: "DIR",
        help:
            "the store directory (default: $CHATDIR_STORE, else store in the config file, else $XDG_DATA_HOME/chatdir or ~/.local/share/chatdir)"
    )
    /// `--help`, which every command takes.
    static let helpOption = Option(name: "--help", value: nil, help: "show this help")

    /// Options every command takes: `--store` (when it opens a store) and `--help`.
    var common: [Option] { (takesStore ? [Self.store] : []) + [Self.helpOption] }

    var allOptions: [Option] { options + common }

    /// The usage line to show beside a usage error: the first that mentions `option`, else the first.
    func usageLine(mentioning option: String? = nil) -> String {
        let line = option.flatMap { option in usage.first { $0.contains(option) } } ?? usage.first ?? ""
        return "chatdir \(name) " + line
    }

    var help: String {
        var text = "\(summary)\n\nUsage:\n"
        for line in usage { text += "  chatdir \(name) \(line)\n" }
        text += "\nOptions:\n"
        let width = allOptions.map { $0.label.count }.max() ?? 0
        for option in allOptions {
            let left = option.label
            text += "  " + left + String(repeating: " ", count: width - left.count + 2) + option.help + "\n"
        }
        if !discussion.isEmpty { text += "\n" + discussion + "\n" }
        return text
    }
}
