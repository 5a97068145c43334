import ChatStore
import ChatSystem
import Dispatch

/// Durable file writes of concurrent requests, made durable together: each request's thread
/// hands its file over and blocks until it is durable, and one of them at a time (the leader)
/// commits everything handed over meanwhile as one ``GroupCommit`` (two `syncfs` for the lot).
///
/// For `positions.json`: a first sync of many conversations posts a delivered position to each,
/// several at once, and one fsync pair each made the server the bottleneck. A lone request
/// commits alone, at once; while a commit runs, the next requests gather, and the oldest of
/// them leads the next commit when this one is done (so no request waits behind more than one
/// commit it is not in).
///
/// Callers order their own writes of one file (the server holds the conversation's positions
/// lock through ``write(_:to:in:)``), so a commit never holds one file twice.
final class SharedCommit: Sendable {
    private struct Handed {
        var bytes: [UInt8]
        var name: String
        var directory: String
        var ticket: Ticket
    }

    private struct State {
        var handed: [Handed] = []
        var committing = false
    }

    private let state = Lock(State())

    /// Replaces `name` in `directory` with `bytes`, durably, returning once it is.
    /// - Throws: ``StoreError/system(_:)`` when the commit it was in failed (nothing of it is acknowledged).
    func write(_ bytes: [UInt8], to name: String, in directory: String) throws(StoreError) {
        let ticket = Ticket()
        let leads = state.withLock { state in
            state.handed.append(Handed(bytes: bytes, name: name, directory: directory, ticket: ticket))
            if state.committing { return false }
            state.committing = true
            return true
        }
        if leads { commitHanded() }
        while true {
            switch ticket.wait() {
            case .lead: commitHanded()
            case .durable: return
            case let .failed(error): throw error
            }
        }
    }

    /// Commits what was handed over, answers those writes, and passes the lead to the oldest
    /// write handed over since (or ends the committing).
    private func commitHanded() {
        let batch = state.withLock { state in
            defer { state.handed = [] }
            return state.handed
        }
        let group = GroupCommit()
        for file in batch { group.stage(file.bytes, as: file.name, in: file.directory) }
        var outcome = Ticket.Outcome.durable
        do throws(SystemError) {
            try group.commit()
        } catch {
            outcome = .failed(.system(error))
        }
        let next = state.withLock { state -> Ticket? in
            if let first = state.handed.first { return first.ticket }
            state.committing = false
            return nil
        }
        for file in batch { file.ticket.resolve(outcome) }
        next?.resolve(.lead)
    }

    /// One write's wait: resolved when durable or failed, or asked to lead the next commit.
    private final class Ticket: Sendable {
        enum Outcome: Sendable {
            case durable
            case failed(StoreError)
            case lead
        }

        private let semaphore = DispatchSemaphore(value: 0)
        private let outcomes = Lock<[Outcome]>([])

        func resolve(_ outcome: Outcome) {
            outcomes.withLock { $0.append(outcome) }
            semaphore.signal()
        }

        func wait() -> Outcome {
            semaphore.wait()
            return outcomes.withLock { $0.removeFirst() }
        }
    }
}
