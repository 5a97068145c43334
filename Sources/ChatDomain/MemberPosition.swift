/// How far one member has received and read a conversation.
public struct MemberPosition: Hashable, Sendable {
    /// The highest sequence this member's devices have stored.
    public var deliveredUpTo: Int
    /// The highest sequence this member has read.
    public var readUpTo: Int

    public static let zero = MemberPosition(deliveredUpTo: 0, readUpTo: 0)

    public init(deliveredUpTo: Int, readUpTo: Int) {
        self.deliveredUpTo = deliveredUpTo
        self.readUpTo = readUpTo
    }

    /// The forward-only merge: each number is the higher of old and new, and reading a
    /// message implies having it, so `deliveredUpTo` is raised to at least `readUpTo`, unless
    /// `raisingDelivered` is false: a Matrix member's stays as received, 0, since Matrix has no
    /// delivered receipt and a store never claims one it was not given.
    public func merged(with other: MemberPosition, raisingDelivered: Bool = true) -> MemberPosition {
        let read = max(readUpTo, other.readUpTo)
        let delivered = max(deliveredUpTo, other.deliveredUpTo)
        return MemberPosition(deliveredUpTo: raisingDelivered ? max(delivered, read) : delivered, readUpTo: read)
    }
}
