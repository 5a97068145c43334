/// A command that failed with a message and a specific exit code.
struct CommandFailure: Error, CustomStringConvertible {
    var message: String
    var exitCode: Int32
    var description: String { message }
}
