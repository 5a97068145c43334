/// Every member's position in one conversation. A member that is absent counts as zero.
///
/// Held as one array sorted by user ID, the order `positions.json` lists them in, rather than
/// a dictionary: a conversation has a handful of members, and the first `[UserID: …]` a
/// process makes costs a scan of every protocol conformance in the binary (about 150,000
/// instructions, 5 % of `chatdir view`; BENCHMARKS.md, "Process start"). Lookups are a binary
/// search; ``members`` builds the dictionary for callers that want one.
public struct Positions: Hashable, Sendable {
    /// One member's position.
    public struct Entry: Hashable, Sendable {
        public var member: UserID
        public var position: MemberPosition

        public init(member: UserID, position: MemberPosition) {
            self.member = member
            self.position = position
        }
    }

    /// Every member with a position, sorted by user ID, each once.
    public private(set) var entries: [Entry]

    public init(_ members: [UserID: MemberPosition] = [:]) {
        entries = members.map { Entry(member: $0.key, position: $0.value) }.sorted { $0.member < $1.member }
    }

    /// Positions from `entries` in any order; a member listed twice keeps its last position,
    /// as assigning into a dictionary would.
    public init(entries: [Entry]) {
        self.entries = []
        for entry in entries { set(entry.position, for: entry.member) }
    }

    /// The members and their positions as a dictionary.
    public var members: [UserID: MemberPosition] {
        Dictionary(uniqueKeysWithValues: entries.map { ($0.member, $0.position) })
    }

    public var isEmpty: Bool { entries.isEmpty }

    public subscript(member: UserID) -> MemberPosition {
        let index = slot(of: member)
        return index < entries.count && entries[index].member == member ? entries[index].position : .zero
    }

    /// Merges `position` into `member`'s, forward only (``MemberPosition/merged(with:raisingDelivered:)``:
    /// a Matrix member's delivered position is not raised). Returns whether anything moved.
    @discardableResult
    public mutating func merge(_ position: MemberPosition, for member: UserID) -> Bool {
        let index = slot(of: member)
        let raising = !member.isMatrix
        guard index < entries.count, entries[index].member == member else {
            entries.insert(
                Entry(member: member, position: MemberPosition.zero.merged(with: position, raisingDelivered: raising)),
                at: index)
            return entries[index].position != .zero
        }
        let old = entries[index].position
        let new = old.merged(with: position, raisingDelivered: raising)
        entries[index].position = new
        return new != old
    }

    /// Merges every member of `other` into this, forward only.
    public func merged(with other: Positions) -> Positions {
        var result = self
        for entry in other.entries {
            result.merge(entry.position, for: entry.member)
        }
        return result
    }

    /// Sets `member`'s position, whatever it was.
    private mutating func set(_ position: MemberPosition, for member: UserID) {
        let index = slot(of: member)
        if index < entries.count, entries[index].member == member {
            entries[index].position = position
        } else {
            entries.insert(Entry(member: member, position: position), at: index)
        }
    }

    /// The index of `member`, or where it would be inserted to keep ``entries`` sorted.
    private func slot(of member: UserID) -> Int {
        // Members arrive in order when a file is read: check the end first.
        if let last = entries.last, last.member < member { return entries.count }
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].member < member { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
