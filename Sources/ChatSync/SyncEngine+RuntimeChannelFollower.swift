import ChatDomain
import ChatProtocol
import ChatStore
import ChatSystem
import Synchronization

/// The live worker's side of the ``RuntimeChannel``: my typing goes to the server, other
/// members' typing comes from it into the channel, and a screen's wish for an older page is
/// fetched and answered. Best effort throughout, and apart from everything else the worker does:
/// nothing here waits on the outbox or holds it up, and a failure here reconnects nothing.
extension SyncEngine {
    /// Watches the channel until cancelled: woken by inotify when a screen writes, and at least
    /// every ``Options/outboxPollInterval`` anyway (no inotify watch left, a root that could not
    /// be made). The root is made (mode 0700) when missing, so there is something to watch before
    /// any screen started, and removed again at the end if it is still empty.
    func followRuntimeChannel(log: @escaping @Sendable (String) -> Void) async {
        let channel = runtime
        let madeRoot = Sys.kind(of: channel.root) == nil
        do {
            _ = try channel.directory([], create: true)
        } catch {
            log(
                "runtime channel: \(error); typing and older pages are looked at every \(options.outboxPollInterval.shortDescription) only"
            )
        }
        let (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        // Depth 1: the root (new conversation directories) and each conversation's directory
        // (typing-me, older-wanted); what the worker writes itself (typing/, older-answer) wakes nothing.
        // The kernel's inotify limits make the watcher poll, which the log says once.
        let said = Atomic<Bool>(false)
        let watcher: DirectoryWatcher?
        do {
            watcher = try DirectoryWatcher(root: channel.root, depth: 1) { batch in
                if let polling = batch.polling, !said.exchange(true, ordering: .relaxed) {
                    log("runtime channel: \(polling)")
                }
                if batch.rescan
                    || batch.changes.contains(where: {
                        $0.directory.isEmpty || $0.name == "typing-me" || $0.name == "older-wanted"
                    })
                {
                    wake.yield()
                }
            }
        } catch {
            watcher = nil
            // The root could not be made (logged above) or went away: the ticker alone looks.
            if Sys.kind(of: channel.root) == .directory {
                log(
                    "runtime channel: cannot watch \(channel.root) (\(error)); typing and older pages are looked at every \(options.outboxPollInterval.shortDescription) only"
                )
            }
        }
        let ticker = Self.ticker(every: options.outboxPollInterval, wake)
        defer {
            ticker.cancel()
            watcher?.stop()
            wake.finish()
            if madeRoot { try? Sys.removeDirectory(channel.root) }
        }
        for await _ in wakeups {
            if Task.isCancelled { return }
            let known = Set((try? await store.knownConversations()) ?? [])
            // Only conversations of the store: a directory name in the channel is untrusted.
            for id in channel.conversations() where known.contains(id) {
                considerTyping(id, log: log)
                considerOlder(id, log: log)
            }
        }
    }

    // MARK: typing

    /// POSTs typing for `id` when the screen's `typing-me` is a new, fresh signal and the
    /// throttle allows. Never retried; a 404 or 405 turns typing off for the session (one line).
    private func considerTyping(_ id: ConversationID, log: @escaping @Sendable (String) -> Void) {
        guard liveState.connected, !liveState.typing.off, let signalled = runtime.myTyping(id) else { return }
        guard liveState.typing.shouldPost(id, signalled: signalled, nowMilliseconds: Self.wallMilliseconds(), at: .now)
        else { return }
        remember(
            Task {
                do throws(SyncError) {
                    try await self.api.typing(id)
                } catch {
                    guard !Task.isCancelled else { return }
                    var status: Int?
                    if case .rejected(let code, _) = error { status = code }
                    self.typingFailed(status: status, log: log)
                }
            })
    }

    private func typingFailed(status: Int?, log: @Sendable (String) -> Void) {
        if liveState.typing.failed(status: status), let status {
            log("\(server) has no typing endpoint (\(status)); typing signals stay off for this session")
        }
    }

    /// Notes in the channel that `member` is typing in `id` (a screen shows it for 6 s).
    func noteTyping(_ id: ConversationID, _ member: UserID) {
        try? runtime.noteTyping(id, user: member, atMilliseconds: Self.wallMilliseconds())
    }

    /// Forgets the typing of every sender of `messages` (their message arrived). Looks at the
    /// channel once, so a page nobody was typing in costs one directory listing.
    func clearTyping(of messages: [Message], in id: ConversationID) {
        let typing = runtime.typing(id)
        guard !typing.isEmpty else { return }
        let senders = Set(messages.map(\.senderID))
        for (user, _) in typing where senders.contains(user) { runtime.clearTyping(id, user: user) }
    }

    static func wallMilliseconds() -> Int64 {
        Int64(Clock.nanosecondsSince1970() / 1_000_000)
    }

    // MARK: older pages

    /// Starts fetching the page a screen wants for `id` unless one is being fetched already or
    /// the wish was answered (a finished answer for the same `before`, failures included: the
    /// screen writes a new wish for the next page, and asks again after a failure by removing
    /// `older-answer`). A `loading` answer left by a stopped worker is fetched again.
    private func considerOlder(_ id: ConversationID, log: @escaping @Sendable (String) -> Void) {
        guard !liveState.olderBusy.contains(id), let before = runtime.olderWanted(id),
            liveState.olderAnswered[id] != before
        else { return }
        if let answer = runtime.olderAnswer(id), answer.before == before {
            if case .loading = answer {} else { return }
        }
        liveState.olderBusy.insert(id)
        remember(Task { await self.fetchOlder(id, before: before, log: log) })
    }

    /// One page older than `before` from the server, saved, then the answer; then a look at the
    /// wish again, which may have changed meanwhile.
    private func fetchOlder(_ id: ConversationID, before: Int, log: @escaping @Sendable (String) -> Void) async {
        try? runtime.answerOlder(id, .loading(before: before))
        let answer: RuntimeChannel.OlderAnswer
        if before <= 1 {
            answer = .beginning(before: before)
        } else {
            do {
                let page = try await retrying { [pageSize = options.pageSize] api in
                    try await api.messages(id, .before(before), limit: pageSize)
                }
                if page.items.isEmpty {
                    answer = .beginning(before: before)
                } else {
                    try await store.saveFromServer(
                        page.items, in: id, before: before, what: "the history page before sequence \(before)")
                    answer = .stored(before: before)
                }
            } catch {
                if Task.isCancelled {
                    liveState.olderBusy.remove(id)
                    return
                }
                log("\(id): the page before sequence \(before) failed: \(error)")
                answer = .failed(before: before, reason: "\(error)")
            }
        }
        do {
            try runtime.answerOlder(id, answer)
        } catch {
            // The answer file is what stops a second fetch; without it, this worker remembers.
            liveState.olderAnswered[id] = before
        }
        liveState.olderBusy.remove(id)
        considerOlder(id, log: log)
    }
}
