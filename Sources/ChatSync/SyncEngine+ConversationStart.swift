import ChatDomain
import ChatProtocol
import ChatStore

extension SyncEngine {
    /// What became of a conversation's queued creation (`outbox/create.json`).
    enum CreationOutcome: Sendable, Equatable {
        /// There is none: the conversation is the server's.
        case none
        /// The server has it now (201, or 409 for the same members: this creation, sent before;
        /// a Matrix room made now or found by its key). `movedTo` is the conversation's new ID
        /// when the server's is not the one it was created with (a Matrix room's folder).
        case created(movedTo: ConversationID?)
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
        // A room named already: made and written down by a run killed before it finished the
        // move (StoreWriter.finishStart's step 1), so the server is not asked again.
        if let info = try await store.info(id), let room = info.roomID {
            let started = ConversationID.matrixRoom(room)
            try await store.finishStart(of: id, as: started, info: info)
            return .created(movedTo: started == id ? nil : started)
        }
        let asked = NewConversation(id: id, title: creation.title, members: creation.members)
        let key = creation.key(for: id, by: await store.me)
        var started: ServerConversation?
        do {
            started = try await retrying { api in try await api.startConversation(asked, key: key) }
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
        if let started, started.id != id {
            try await store.finishStart(of: id, as: started.id, info: started.info)
            return .created(movedTo: started.id)
        }
        try await store.removeCreation(in: id)
        return .created(movedTo: nil)
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
                case .created(let movedTo):
                    created = true
                    if let movedTo { report.started.append(Report.Started(id: id, folder: movedTo)) }
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
    /// any. Returns whether the conversation's messages may go out now under `id`; a
    /// conversation moved to its room's folder is followed there, and its messages go out
    /// from that folder in the next outbox round.
    func startQueuedConversationLive(_ id: ConversationID, log: @Sendable (String) -> Void) async throws -> Bool {
        switch try await startQueuedConversation(id) {
        case .none: return true
        case .created(let movedTo?):
            log("started \(id) as \(movedTo)")
            await followStarted(movedTo)
            return false
        case .created(nil):
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
