import ChatDomain
import ChatMatrix

extension MatrixRoomState {
    /// The state filter of ``MatrixClient/roomStates()``: the state events ``MatrixRoomState``
    /// reads, one timeline event per room (Synapse sends the state at the timeline's start, so
    /// a room whose newest events changed its name still has them in the timeline), no
    /// ephemeral, presence or account data.
    static let filter =
        #"{"account_data":{"not_types":["*"]},"presence":{"not_types":["*"]},"room":{"account_data":{"not_types":["*"]},"ephemeral":{"not_types":["*"]},"state":{"types":["m.room.name","m.room.canonical_alias","m.room.member","m.room.encryption"]},"timeline":{"limit":1}}}"#

    /// The conversation this room is in `me`'s store: its folder from the room ID alone, its
    /// title by ``MatrixRoomTitle``, its joined members, whether it is encrypted.
    func conversation(me: UserID) throws(DomainError) -> ServerConversation {
        var users: [UserID] = []
        for member in members {
            users.append(try UserID(member.rawValue))
        }
        let title = MatrixRoomTitle.title(
            name: name, canonicalAlias: canonicalAlias, members: users, me: me, roomID: roomID.rawValue)
        return ServerConversation(
            id: ConversationID.matrixRoom(roomID.rawValue), title: title, members: users, head: nil,
            roomID: roomID.rawValue, encrypted: encrypted)
    }
}

extension MatrixClient {
    /// The state of every room I have joined, from one `/sync` without a token that asks only
    /// for what ``MatrixRoomState`` reads.
    public func roomStates() async throws(SyncError) -> [MatrixRoomState] {
        try await sync(since: nil, filter: MatrixRoomState.filter).joined.map(MatrixRoomState.init)
    }
}
