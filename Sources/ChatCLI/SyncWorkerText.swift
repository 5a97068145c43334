import ChatDomain
import ChatStore

/// The sync worker's state in the words `chatdir status` uses, for the status lines of `chat`,
/// `view --follow` and `list --follow`, and what a screen says of a conversation it stopped on.
enum SyncWorkerText {
    /// `sync worker connected`, `sync worker reconnecting (server unreachable: …; next try in 4 s)`,
    /// `no sync worker running: the last one stopped: the server refused the token (…)`.
    /// `pid` is the lock's holder; `pending` messages make "no worker" say what waits.
    static func summary(pid: Int32?, _ worker: SyncWorkerState, pending: Int) -> String {
        guard let pid else {
            if let last = worker.status, last.connection == .stopped, let problem = last.problem {
                return "no sync worker running: the last one stopped: " + problem
            }
            return pending > 0
                ? "no sync worker running: pending messages wait in the outbox" : "no sync worker running"
        }
        var current = worker
        current.pid = pid
        guard let status = current.current else { return "sync worker running (pid \(pid))" }
        return "sync worker " + connection(status, nextTryIn: worker.nextTryIn)
    }

    /// `connected`, `reconnecting (why; next try in 4 s)`: what `status` says after the pid.
    static func connection(_ status: SyncStatus, nextTryIn: Int?) -> String {
        var text = status.connection.rawValue
        guard status.connection == .reconnecting else { return text }
        var why: [String] = []
        if let problem = status.problem { why.append(problem) }
        if let next = nextTryIn { why.append(next == 0 ? "trying now" : "next try in \(next) s") }
        if !why.isEmpty { text += " (" + why.joined(separator: "; ") + ")" }
        return text
    }

    /// The line a screen and `status` show while the worker cannot sync conversation `id`:
    /// nothing new arrives and the outbox waits, so it says why and what to do. A damaged file
    /// (its reason starts with the file's path in the store) is repaired by hand, with `check`
    /// to find every damaged line; other reasons (the server's history differs) say their own way out.
    static func stopped(_ problem: String, conversation id: ConversationID, hint: PasteHint) -> String {
        let line = "sync stopped for \(id): \(problem)"
        guard problem.hasPrefix(StoreLayout.conversations + "/") else { return line }
        return line
            + "; repair it (\(hint.command("check", "")) names every damaged line), then the sync worker syncs it again by itself"
    }
}
