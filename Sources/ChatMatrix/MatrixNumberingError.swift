/// Why ``MatrixNumbering`` refused a page of events: nothing of that page was numbered.
public enum MatrixNumberingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// History differs: `eventID` is numbered `numbered`, but the page puts it at `found`.
    case eventMoved(MatrixEventID, numbered: Int, found: Int)
    /// History differs: `sequence` is numbered for `numbered`, but the page puts `found` there.
    case sequenceTaken(Int, numbered: MatrixEventID, found: MatrixEventID)
    /// The message `eventID` would be numbered below 1 (older) or above ``MatrixNumbering/sequences``
    /// (newer): the room's history past it is out of reach of this numbering.
    case outOfReach(MatrixEventID, older: Bool)

    public var description: String {
        switch self {
        case .eventMoved(let eventID, let numbered, let found):
            "history differs: event \(eventID) is sequence \(numbered), but the server's history puts it at \(found)"
        case .sequenceTaken(let sequence, let numbered, let found):
            "history differs: sequence \(sequence) is event \(numbered), but the server's history puts \(found) there"
        case .outOfReach(let eventID, true):
            "older history is out of reach: message \(eventID) would come before sequence 1 (the room's anchor is sequence \(MatrixNumbering.anchorSequence), and messages before it count down)"
        case .outOfReach(let eventID, false):
            "newer history is out of reach: message \(eventID) would come after sequence \(MatrixNumbering.sequences.upperBound)"
        }
    }
}
