import ChatDomain
import ChatStore
import ChatSystem

/// `chatdir watch`: one JSON line per change to the store, for scripts.
enum WatchCommand: Command {
    static let spec = CommandSpec(
        name: "watch",
        summary: "Print one JSON line per change to a conversation (or the whole store), for scripts.",
        usage: ["[CONV] [--exec CMD [--on message,mine,failed,read] [--hook-timeout SECONDS]]"],
        options: [
            .init(name: "--exec", value: "CMD", help: "run CMD with /bin/sh -c once per event (see Hooks below)"),
            .init(
                name: "--on", value: "EVENTS",
                help: "which events run CMD, comma-separated: message, mine, failed, read (default: message)"),
            .init(
                name: "--hook-timeout", value: "SECONDS", help: "stop a hook still running after SECONDS (default: 60)"),
        ],
        discussion: """
            The first line is {"event":"watching",...}: from then on no change is missed. Then one line
            per change, with "event" one of: message (a stored message, with sequence, clientMessageId,
            senderId, sentAt, text), message-removed, outbox-added, outbox-changed, outbox-removed
            (delivered or dropped), positions, read-wanted, details, history (an older segment was
            filled in), conversation-added, conversation-removed, resync (events were lost and the
            files were read again; the differences follow), sync-worker. A message line has
            "mine": true for my own messages. In a Matrix store a message line also has eventId, and
            kind, redacted or replaces when the record has them; an edit's record is an "edit" line
            (its new text, and "replaces": the edited event), and a redaction arrives as the message
            line again with "redacted": true and no text. Hooks run for neither. Runs until interrupted.
            When the kernel refuses an inotify watch (the per-user limit fs.inotify.max_user_watches,
            or max_user_instances, is reached), the folders it would not watch are checked every
            second instead: no change is missed, lines may come up to a second late, and stderr says
            so once, with the setting to raise. Standard output stays one line per change.

            Hooks: with --exec, CMD runs once per event: message (another member's new message),
            mine (one of mine, stored once the server took it), failed (one of my queued messages
            refused), read (another member read further). The details are in the environment:
            CHATDIR_EVENT, CHATDIR_STORE, CHATDIR_CONVERSATION, CHATDIR_TITLE, CHATDIR_SENDER (for
            read: who read), CHATDIR_SEQUENCE (for read: how far), for failed also
            CHATDIR_CLIENT_MESSAGE_ID and CHATDIR_ERROR. The text comes on standard input, never in
            the environment or the arguments. Hooks run one at a time, in order; up to 100 wait,
            and an event that finds the queue full is dropped with a line on stderr. Each hook's
            output and exit status are logged on stderr; one still running after --hook-timeout is
            stopped (SIGTERM to its process group, SIGKILL 2 s later), as is the running one when
            watch stops. Only events seen while watch runs count: nothing already stored when it
            starts runs CMD (nor, after a restart, what came while it was stopped), and each event
            runs it once.

            Examples:
              chatdir watch c1 | jq -r 'select(.event == "message") | "\\(.senderId): \\(.text)"'
              chatdir watch --exec 'notify-send -- "$CHATDIR_TITLE" "$CHATDIR_SENDER: $(head -c 200)"'
              chatdir watch dinner --on message,mine --exec 'cat >> ~/dinner.log'
            """
    )

    static func run(_ context: Context) throws -> Int32 {
        let arguments = context.arguments
        try arguments.expectAtMost(1)
        let id: ConversationID? = try arguments.positionals.first.map { text throws(UsageError) in
            try context.conversationID(text)
        }
        let hooks = try HookOptions(context)
        let store = try context.openStore()
        let me = store.userID
        var filter = hooks.map { hooks in
            HookFilter(
                kinds: hooks.kinds, me: me,
                readTitle: { (try? store.conversation($0).info()?.title) ?? $0.rawValue },
                readPositions: { id in
                    let members = (try? store.conversation(id).positions()?.members) ?? [:]
                    return members.mapValues(\.readUpTo)
                })
        }
        for conversation in (id.map { [$0] } ?? ((try? store.conversationIDs()) ?? [])) { filter?.start(conversation) }
        let runner = try hooks.map { hooks throws(SystemError) in
            let output = context.output
            return try HookRunner(
                command: hooks.command, environment: context.environment, store: store.root,
                timeoutSeconds: hooks.timeoutSeconds, log: { output.error($0) })
        }
        // Every hook is stopped and reaped however watch ends (a conversation that cannot be
        // watched throws below).
        defer { runner?.stop() }
        let changes = try StoreObserver(store: store).changes(in: id)
        var ready: [(key: String, value: JSONValue)] = [("event", .string("watching"))]
        if let id { ready.append(("conversationId", .string(id.rawValue))) }
        context.output.print(JSONLine.encode(.object(ready)))
        let filterBox = Lock(filter)
        let output = context.output
        return try Follow.block {
            var polling = PollingWarning(command: "watch", output: output)
            for await event in Follow.merge(changes, Terminal.signals(resize: false)) {
                switch event {
                case .value(.polling(let reason)):
                    // Not a change to the files: said once on stderr, stdout stays the changes.
                    polling.note(reason)
                case .value(let change):
                    guard let text = line(change, me: me) else { continue }
                    Output.write(1, text + "\n")
                    if let runner {
                        for hook in filterBox.withLock({ $0?.events(for: change) ?? [] }) { runner.submit(hook) }
                    }
                case .signal(.resize): continue
                case .signal(.stop), .ended: return 0
                }
            }
            return 0
        }
    }

    /// What `--exec`, `--on` and `--hook-timeout` ask for; nil without `--exec`.
    struct HookOptions {
        var command: String
        var kinds: Set<HookEvent.Kind>
        var timeoutSeconds: Int

        init?(_ context: Context) throws(UsageError) {
            let arguments = context.arguments
            guard let command = arguments.value("--exec") else {
                if arguments.value("--on") != nil || arguments.value("--hook-timeout") != nil {
                    throw context.usage("--on and --hook-timeout are for hooks; give the command with --exec CMD")
                }
                return nil
            }
            guard !command.allSatisfy(\.isWhitespace) else { throw context.usage("--exec needs a command to run") }
            self.command = command
            kinds = [.message]
            if let list = arguments.value("--on") {
                kinds = []
                for name in list.split(separator: ",", omittingEmptySubsequences: false) {
                    guard let kind = HookEvent.Kind(rawValue: String(name)) else {
                        throw context.usage(
                            "--on: unknown event \(String(name).debugDescription); use some of \(HookEvent.Kind.allCases.map(\.rawValue).joined(separator: ","))"
                        )
                    }
                    kinds.insert(kind)
                }
            }
            timeoutSeconds = try arguments.integer("--hook-timeout", in: 1...86_400) ?? 60
        }
    }

    /// One change as one JSON object; `me` decides a message's "mine". Nil for
    /// ``StoreChange/polling(_:)``, which is no change to the files (watch says it on stderr).
    static func line(_ change: StoreChange, me: UserID) -> String? {
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
        case .messageAdded(let id, let message):
            // A Matrix edit is its own record but no new message: "edit", naming what it edits.
            event(message.replaces == nil ? "message" : "edit", id)
            add("sequence", .integer(message.sequence))
            add("clientMessageId", .string(message.clientMessageID.rawValue))
            add("senderId", .string(message.senderID.rawValue))
            add("sentAt", .string(message.sentAt))
            add("mine", .bool(message.senderID == me))
            add("text", .string(message.text))
            if let eventID = message.eventID { add("eventId", .string(eventID.rawValue)) }
            if let kind = message.kind { add("kind", .string(kind.rawValue)) }
            if message.redacted { add("redacted", .bool(true)) }
            if let replaces = message.replaces { add("replaces", .string(replaces.rawValue)) }
        case .messageRemoved(let id, let sequence):
            event("message-removed", id)
            add("sequence", .integer(sequence))
        case .outboxAdded(let id, let entry):
            event("outbox-added", id)
            outbox(entry)
        case .outboxChanged(let id, let entry):
            event("outbox-changed", id)
            outbox(entry)
        case .outboxRemoved(let id, let clientID):
            event("outbox-removed", id)
            add("clientMessageId", .string(clientID.rawValue))
        case .positionsChanged(let id):
            event("positions", id)
        case .readWanted(let id, let upTo):
            event("read-wanted", id)
            add("upTo", upTo.map { .integer($0) } ?? .null)
        case .detailsChanged(let id):
            event("details", id)
        case .historyChanged(let id, let segment):
            event("history", id)
            add("segment", .string(segment))
        case .conversationAdded(let id):
            event("conversation-added", id)
        case .conversationRemoved(let id):
            event("conversation-removed", id)
        case .resynced(let id):
            event("resync", id)
        case .syncWorker(let pid):
            event("sync-worker", nil)
            add("running", .bool(pid != nil))
            add("pid", pid.map { .integer(Int($0)) } ?? .null)
        case .polling:
            return nil
        }
        return JSONLine.encode(.object(members))
    }
}
