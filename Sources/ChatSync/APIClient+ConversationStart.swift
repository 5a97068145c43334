import ChatDomain
import ChatProtocol

extension APIClient {
    /// Starts a conversation (`POST /v1/conversations`, a v1 extension): the 201's conversation.
    /// 409 (the ID is taken), 404 or 405 (no such endpoint) are ``SyncError/rejected(status:message:)``.
    public func startConversation(_ conversation: NewConversation) async throws(SyncError) -> WireConversation {
        let answer = try await send(.createConversation, body: WireEncoder.newConversation(conversation))
        let started = try answer.decode(WireDecoder.startedConversation)
        guard started.id == conversation.id else {
            throw .contract("the server answered the start of \(conversation.id) with conversation \(started.id)")
        }
        return started
    }
}
