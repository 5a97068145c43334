/// A room event with the sequence ``MatrixNumbering`` gave it: the order every device of the
/// account stores it at.
public struct MatrixNumberedEvent: Sendable, Hashable {
    public var sequence: Int
    public var event: MatrixEvent

    public init(sequence: Int, event: MatrixEvent) {
        self.sequence = sequence
        self.event = event
    }
}
