import ChatDomain

/// One thing wrong with a store file: where (path relative to the store root, line) and what
/// to do about it. Errors make a store unusable where they stand; warnings are worth fixing but
/// every reader copes with them.
public struct StoreProblem: Hashable, Sendable, CustomStringConvertible {
    public enum Severity: String, Hashable, Sendable { case error, warning }

    public var path: String
    public var line: Int?
    public var message: String
    public var severity: Severity

    public init(path: String, line: Int? = nil, _ message: String, severity: Severity = .error) {
        self.path = path
        self.line = line
        self.message = message
        self.severity = severity
    }

    /// A client message ID stored in two segments of one conversation.
    static func duplicateClientID(_ message: Message, path: String, line: Int?, otherPath: String) -> StoreProblem {
        StoreProblem(
            path: path, line: line,
            "client message ID \(message.clientMessageID) (sequence \(message.sequence)) is also stored in \(otherPath); a message is stored once, remove one of the two records"
        )
    }

    static func duplicateEventID(_ message: Message, _ eventID: EventID, path: String, line: Int?, otherPath: String)
        -> StoreProblem
    {
        StoreProblem(
            path: path, line: line,
            "event ID \(eventID) (sequence \(message.sequence)) is also stored in \(otherPath); an event is stored once, remove one of the two records"
        )
    }

    /// `path:line: message`, the form editors and `grep -n` users jump to.
    public var description: String {
        if let line { return "\(path):\(line): \(message)" }
        return "\(path): \(message)"
    }
}
