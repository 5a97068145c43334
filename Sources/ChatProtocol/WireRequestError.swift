/// Why the server refuses a request's body or query: one line for the 400's `{"error": …}`.
public struct WireRequestError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
