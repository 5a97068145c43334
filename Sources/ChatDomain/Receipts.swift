/// What the sender's tick says about a message the server accepted.
public enum ReceiptState: String, Hashable, Sendable, CaseIterable {
    /// Positions were never loaded: nothing is claimed (shown dimmed), never "not delivered".
    case unknown
    /// Accepted by the server; not every other member has it yet.
    case sent
    /// Every other member's devices have it.
    case delivered
    /// Every other member has read it.
    case read
}

/// The tick rule, for a message at `sequence` sent by `sender`.
///
/// Every other member (everyone in `members` but the sender) read past it → read; every other
/// member delivered past it → delivered; otherwise sent. With `positions` nil (never loaded) the
/// answer is ``ReceiptState/unknown``. A conversation with no other member counts as sent: no one
/// else can receive it, and "read" would claim something that did not happen.
public func receiptState(sequence: Int, sender: UserID, members: [UserID], positions: Positions?) -> ReceiptState {
    guard let positions else { return .unknown }
    let others = members.filter { $0 != sender }
    guard !others.isEmpty else { return .sent }
    if others.allSatisfy({ positions[$0].readUpTo >= sequence }) { return .read }
    if others.allSatisfy({ positions[$0].deliveredUpTo >= sequence || positions[$0].readUpTo >= sequence }) {
        return .delivered
    }
    return .sent
}
