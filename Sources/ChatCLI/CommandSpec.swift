/// What a command accepts: its options and positional arguments, and the help text built from them.
struct CommandSpec: Sendable {
    struct Option: Sendable {
        var name: String
        /// Placeholder of the value (`N`, `DIR`); nil for a flag.
        var value: String?
        var help: String
    }

    var name: String
    var summary: String
    /// Usage lines after `chatdir <name>`, like `CONV TEXT...`.
    var usage: [String]
    var options: [Option]
    /// Paragraphs after the options: details and examples.
    var discussion: String = ""

    /// Options every command takes.
    static let common: [Option] = [
        Option(name: "--store", value: "DIR", help: "the store directory (default: $CHATDIR_STORE, else $XDG_DATA_HOME/chatdir or ~/.local/share/chatdir)"),
        Option(name: "--help", value: nil, help: "show this help"),
    ]

    var allOptions: [Option] { options + Self.common }

    var help: String {
        var text = "\(summary)\n\nUsage:\n"
        for line in usage { text += "  chatdir \(name) \(line)\n" }
        text += "\nOptions:\n"
        let width = allOptions.map { $0.name.count + ($0.value.map { $0.count + 1 } ?? 0) }.max() ?? 0
        for option in allOptions {
            let left = option.name + (option.value.map { " " + $0 } ?? "")
            text += "  " + left + String(repeating: " ", count: width - left.count + 2) + option.help + "\n"
        }
        if !discussion.isEmpty { text += "\n" + discussion + "\n" }
        return text
    }
}
