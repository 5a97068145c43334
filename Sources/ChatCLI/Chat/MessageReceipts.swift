import ChatDomain

/// Who has one message and who has read it, member by member, from the stored positions: what
/// the tick sums up for everyone (``receiptState(sequence:sender:members:positions:)``), told
/// per member. `chatdir receipts` and the chat screen's `i` panel both show this.
struct MessageReceipts: Hashable, Sendable {
    struct Member: Hashable, Sendable {
        var user: UserID
        /// The member's devices store the message (delivered up to it, or read past it).
        var delivered: Bool
        var read: Bool
    }

    var sequence: Int
    /// Every member but the sender, in the conversation's member order.
    var members: [Member]

    /// The receipts of the message at `sequence` sent by `sender`, by the tick's rule: reading
    /// a message implies having it.
    init(sequence: Int, sender: UserID, members: [UserID], positions: Positions) {
        self.sequence = sequence
        var seen = Set<UserID>()
        self.members = members.filter { $0 != sender && seen.insert($0).inserted }.map { user in
            let position = positions[user]
            let read = position.readUpTo >= sequence
            return Member(user: user, delivered: read || position.deliveredUpTo >= sequence, read: read)
        }
    }

    var deliveredCount: Int { members.filter(\.delivered).count }
    var readCount: Int { members.filter(\.read).count }

    /// `delivered to 3 of 4 · read by 1 of 4` (`no other member` when there is none).
    var summary: String {
        guard !members.isEmpty else { return "no other member" }
        return "delivered to \(deliveredCount) of \(members.count) · read by \(readCount) of \(members.count)"
    }

    /// One line per member, names padded to one column: `bob    ✓✓ read`. Member IDs are
    /// valid names (no control characters), but pass through `safe` all the same.
    func memberLines(safe: (String) -> String = { TerminalSafe.visible($0) }) -> [String] {
        let width = members.map { $0.user.rawValue.count }.max() ?? 0
        return members.map { member in
            let name = member.user.rawValue
            return safe(name) + String(repeating: " ", count: width - name.count) + "  " + Self.words(member)
        }
    }

    /// `✓✓ read`, `✓✓ delivered, not read yet`, `✓ not delivered yet`.
    static func words(_ member: Member) -> String {
        if member.read { return "✓✓ read" }
        if member.delivered { return "✓✓ delivered, not read yet" }
        return "✓ not delivered yet"
    }
}
