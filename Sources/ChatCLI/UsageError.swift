/// A command line that does not fit its command: exit 64, with the argument named.
struct UsageError: Error, CustomStringConvertible {
    var message: String
    var command: String
    var description: String { message }
}
