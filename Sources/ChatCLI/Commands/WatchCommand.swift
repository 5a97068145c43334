import ChatDomain
import ChatStore

/// `chatdir watch`: one JSON line per change to the store, for scripts.
enum WatchCommand: Command {
    static let spec = CommandSpec(
        name: "watch",
        summary: "Print one JSON line per change to a conversation (or the whole store), for scripts.",
        usage: ["[CONV]"],
        options: [],
        discussion: """
        The first line is {"event":"watching",...}: from then on no change is missed. Then one line
        per change, with "event" one of: message (a stored message, with sequence, clientMessageId,
        senderId, sentAt, text), message-removed, outbox-added, outbox-changed, outbox-removed
        (delivered or dropped), positions, read-wanted, details, history (an older segment was
        filled in), conversation-added, conversation-removed, resync (events were lost and the
        files were read again; the differences follow), sync-worker. Runs until interrupted.

        Examples:
          chatdir watch c1 | jq -r 'select(.event == "message") | "\\(.senderId): \\(.text)"'
          chatdir watch | while read -r line; do notify-send chatdir "$line"; done
        """
    )

    static func run(_ context: Context) throws -> Int32 {
        let arguments = context.arguments
        try arguments.expectAtMost(1)
        let id: ConversationID? = try arguments.positionals.first.map { text throws(UsageError) in try context.conversationID(text) }
        let store = try context.openStore()
        let changes = try StoreObserver(store: store).changes(in: id)
        var ready: [(key: String, value: JSONValue)] = [("event", .string("watching"))]
        if let id { ready.append(("conversationId", .string(id.rawValue))) }
        context.output.print(JSONLine.encode(.object(ready)))
        return try Follow.block {
            for await event in Follow.merge(changes, Terminal.signals(resize: false)) {
                switch event {
                case let .value(change): Output.write(1, line(change) + "\n")
                case .signal(.resize): continue
                case .signal(.stop), .ended: return 0
                }
            }
            return 0
        }
    }

    /// One change as one JSON object.
    static func line(_ change: StoreChange) -> String {
        var members: [(key: String, value: JSONValue)] = []
        func add(_ key: String, _ value: JSONValue) { members.append((key, value)) }
        func event(_ name: String, _ id: ConversationID?) {
            add("event", .string(name))
            if let id { add("conversationId", .string(id.rawValue)) }
        }
        func outbox(_ entry: OutboxEntry) {
            add("clientMessageId", .string(entry.clientMessageID.rawValue))
            add("state", .string(entry.state.rawValue))
            add("attempts", .integer(entry.attempts))
            if let error = entry.error { add("error", .string(error)) }
            add("text", .string(entry.text))
        }
        switch change {
        case let .messageAdded(id, message):
            event("message", id)
            add("sequence", .integer(message.sequence))
            add("clientMessageId", .string(message.clientMessageID.rawValue))
            add("senderId", .string(message.senderID.rawValue))
            add("sentAt", .string(message.sentAt))
            add("text", .string(message.text))
        case let .messageRemoved(id, sequence):
            event("message-removed", id)
            add("sequence", .integer(sequence))
        case let .outboxAdded(id, entry):
            event("outbox-added", id)
            outbox(entry)
        case let .outboxChanged(id, entry):
            event("outbox-changed", id)
            outbox(entry)
        case let .outboxRemoved(id, clientID):
            event("outbox-removed", id)
            add("clientMessageId", .string(clientID.rawValue))
        case let .positionsChanged(id):
            event("positions", id)
        case let .readWanted(id, upTo):
            event("read-wanted", id)
            add("upTo", upTo.map { .integer($0) } ?? .null)
        case let .detailsChanged(id):
            event("details", id)
        case let .historyChanged(id, segment):
            event("history", id)
            add("segment", .string(segment))
        case let .conversationAdded(id):
            event("conversation-added", id)
        case let .conversationRemoved(id):
            event("conversation-removed", id)
        case let .resynced(id):
            event("resync", id)
        case let .syncWorker(pid):
            event("sync-worker", nil)
            add("running", .bool(pid != nil))
            add("pid", pid.map { .integer(Int($0)) } ?? .null)
        }
        return JSONLine.encode(.object(members))
    }
}
