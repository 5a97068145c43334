/// A command line that does not fit its command: exit 64, with the argument named.
struct UsageError: Error, CustomStringConvertible {
    var message: String
    var command: String
    var description: String { message }

    /// What `chatdir` writes on stderr for it: the command and the message, then where the usage is.
    var report: String { "chatdir \(command): \(message)\nRun `chatdir \(command) --help` for usage." }

    /// EX_USAGE, sysexits(3).
    var exitCode: Int32 { 64 }
}
