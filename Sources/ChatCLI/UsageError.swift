/// A command line that does not fit its command: exit 64, with the argument named.
struct UsageError: Error, CustomStringConvertible {
    var message: String
    var command: String
    /// The command's usage line, shown instead of a pointer to `--help` when the words on the
    /// command line were not understood at all (an unknown option).
    var usage: String? = nil
    var description: String { message }

    /// What `chatdir` writes on stderr for it: the command and the message, then the usage line
    /// or where the usage is.
    var report: String {
        "chatdir \(command): \(message)\n"
            + (usage.map { "Usage: " + $0 } ?? "Run `chatdir \(command) --help` for usage.")
    }

    /// EX_USAGE, sysexits(3).
    var exitCode: Int32 { 64 }
}
