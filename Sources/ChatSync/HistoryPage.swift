/// Which page of a conversation's history to ask for.
enum HistoryPage: Sendable, Equatable {
    case after(Int)
    case before(Int)
    case newest
}
