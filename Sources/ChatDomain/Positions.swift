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
    /// message implies having it, so `deliveredUpTo` is raised to at least `readUpTo`.
    public func merged(with other: MemberPosition) -> MemberPosition {
        let read = max(readUpTo, other.readUpTo)
        return MemberPosition(deliveredUpTo: max(deliveredUpTo, other.deliveredUpTo, read), readUpTo: read)
    }
}

/// Every member's position in one conversation. A member that is absent counts as zero.
public struct Positions: Hashable, Sendable {
    public private(set) var members: [UserID: MemberPosition]

    public init(_ members: [UserID: MemberPosition] = [:]) {
        self.members = members
    }

    public subscript(member: UserID) -> MemberPosition {
        members[member] ?? .zero
    }

    /// Merges `position` into `member`'s, forward only. Returns whether anything moved.
    @discardableResult
    public mutating func merge(_ position: MemberPosition, for member: UserID) -> Bool {
        let old = self[member]
        let new = old.merged(with: position)
        guard new != old || members[member] == nil else { return false }
        members[member] = new
        return new != old
    }

    /// Merges every member of `other` into this, forward only.
    public func merged(with other: Positions) -> Positions {
        var result = self
        for (member, position) in other.members {
            result.merge(position, for: member)
        }
        return result
    }
}
