import ChatDomain
import ChatProtocol
import ChatStore

extension SyncEngine {
    /// What became of a conversation's queued creation (`outbox/create.json`).
    enum CreationOutcome: Sendable, Equatable {
        /// There is none: the conversation is the server's.
        case none
        /// The server has it now (201, or 409 for the same members: this creation, sent before).
        case created
        /// Refused now, with the reason written into the file.
        case failed(String)
        /// Refused earlier: it stays failed, its messages pending.
        case refusedBefore
    }

    /// The reason a refused creation is marked failed with, from the status the server gave.
    static func creationRefusal(status: Int, message: String) -> String {
        switch status {
        case 404, 405:
            "this server cannot start conversations (\(status): \(message)); the conversation's messages stay pending"
        case 409: "the server has another conversation with this ID (409: \(message)); its messages stay pending"
        default: SyncError.rejected(status: status, message: message).description
        }
    }

    /// Posts conversation `id`'s queued creation, if it has one that is pending, retrying
    /// temporary failures like any idempotent request (a 409 for the same members after a lost
    /// answer counts as created). Temporary failures and a refused token are thrown; the file
    /// stays pending.
    func startQueuedConversation(_ id: ConversationID) async throws -> CreationOutcome {
        guard let creation = try await store.queuedCreation(id) else { return .none }
        guard creation.state == .pending else { return .refusedBefore }
        let asked = NewConversation(id: id, title: creation.title, members: creation.members)
        do {
            try await retrying { api in try await api.startConversation(asked) }
        } catch let SyncError.rejected(status, message) {
            var sameMembers = false
            if status == 409 {
                let listed = try await retrying { api in try await api.conversations() }
                sameMembers =
                    listed.first(where: { $0.id == id }).map { Set($0.members) == Set(asked.members) } ?? false
            }
            if !sameMembers {
                let reason = Self.creationRefusal(status: status, message: message)
                try await store.markCreationFailed(in: id, reason: reason)
                return .failed(reason)
            }
        }
        try await store.removeCreation(in: id)
        return .created
    }

    /// A pass's step before its conversations: every queued creation posted. Returns whether
    /// one was created (the conversation list is then fetched again). A refusal counts like a
    /// rejected message; the conversation's messages count as still pending.
    func startQueuedConversations(report: inout Report) async throws -> Bool {
        var created = false
        for id in try await store.knownConversations() {
            do {
                switch try await startQueuedConversation(id) {
                case .none: continue
                case .created: created = true
                case .failed(let reason):
                    report.failed.append("\(id): \(reason)")
                    report.stillPending += try await store.pendingOutbox(id).count
                case .refusedBefore:
                    report.stillPending += try await store.pendingOutbox(id).count
                }
            } catch {
                if case SyncError.unauthorized = error { throw error }
                if case SyncError.untrusted = error { throw error }
                report.record(error, in: id)
                report.stillPending += (try? await store.pendingOutbox(id).count) ?? 0
            }
        }
        return created
    }

    /// The live worker's step before a conversation's outbox: its queued creation posted, if
    /// any. Returns whether the conversation's messages may go out now.
    func startQueuedConversationLive(_ id: ConversationID, log: @Sendable (String) -> Void) async throws -> Bool {
        switch try await startQueuedConversation(id) {
        case .none: return true
        case .created:
            log("\(id): started on the server")
            return true
        case .failed(let reason):
            log("\(id): not started: \(reason)")
            return false
        case .refusedBefore:
            return false
        }
    }
}
