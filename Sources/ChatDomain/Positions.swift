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
