import ChatDomain
import ChatStore
import ChatSystem

/// What the chat screen waits for, in arrival order.
enum ChatEvent: Sendable {
    case state(ConversationState)
    case key(Key)
    /// Something changed in the conversation's runtime channel (typing, an older-page answer);
    /// with why its watcher polls, when it does.
    case channel(polling: WatchFallback?)
    /// Half a second passed: typing expires, the typing signal stops.
    case tick
    case resize
    /// SIGINT, SIGTERM or SIGHUP.
    case stop
    /// The store's stream or the keyboard ended.
    case ended
}

/// The chat screen's loop: feeds every event to the ``ChatScreenModel``, carries out the
/// effects it asks for against the store and the runtime channel, and draws a frame after
/// each. The model decides; this only does what it says.
final class ChatSession: @unchecked Sendable {
    // Used from the command's one task only, once `run` starts.
    private let store: Store
    private let conversation: Conversation
    private let channel: RuntimeChannel
    private let output: Output
    private let terminal: ChatTerminal
    private var model: ChatScreenModel
    private var workerRunning = false
    /// Said on stderr once the screen is put away, and on the status line meanwhile.
    private var polling: PollingWarning
    /// Called once, after the first frame that shows the conversation (time to open).
    private var opened: (() -> String?)?
    /// How many older rows one look into the stored segments reads.
    static let olderPage = 100

    init(
        store: Store, conversation: Conversation, channel: RuntimeChannel, output: Output, hint: PasteHint, mouse: Bool,
        opened: (() -> String?)? = nil
    ) throws(StoreError) {
        self.opened = opened
        self.store = store
        self.conversation = conversation
        self.channel = channel
        self.output = output
        terminal = ChatTerminal(mouse: mouse)
        polling = PollingWarning(command: "chat", output: output, deferred: output.isTerminalError)
        let opened = try conversation.snapshot(limit: 1)
        let read = max(opened.positions?[store.userID].readUpTo ?? 0, try conversation.wantedReadPosition() ?? 0)
        let size = Terminal.size() ?? (rows: 24, columns: 80)
        model = ChatScreenModel(
            me: store.userID, conversation: conversation.id, readPosition: read == 0 ? nil : read,
            hint: hint, rows: size.rows, columns: size.columns)
    }

    private var id: ConversationID { conversation.id }

    func run() async throws -> Int32 {
        let size = Terminal.size() ?? (rows: 24, columns: 80)
        // Twice a screenful to start with; scrolling up reads older segments on demand.
        let states = try StoreObserver(store: store).states(in: id, limit: max(100, size.rows * 2))
        terminal.enter()
        defer {
            terminal.restore()
            polling.finish()
        }
        let events = Self.merge(
            states: states, keys: try ChatTerminal.keys(), channel: Self.watch(channel, id),
            signals: Terminal.signals(resize: true))
        draw()
        for await event in events {
            let now = Int64(Clock.nanosecondsSince1970() / 1_000_000)
            var effects: [ChatEffect] = []
            switch event {
            case .state(let state):
                workerRunning = state.syncWorker != nil
                polling.note(state.polling)
                model.update(polling.marked(state))
                model.update(olderAnswer: channel.olderAnswer(id), workerRunning: workerRunning)
                effects += model.tick(now: now)
            case .key(let key):
                effects += model.handle(key, now: now)
            case .channel(let reason):
                if polling.note(reason), let state = model.state { model.update(polling.marked(state)) }
                model.update(typing: channel.typing(id), now: now)
                model.update(olderAnswer: channel.olderAnswer(id), workerRunning: workerRunning)
                effects += model.tick(now: now)
            case .tick:
                model.update(typing: channel.typing(id), now: now)
                effects += model.tick(now: now)
            case .resize:
                let size = Terminal.size() ?? (rows: 24, columns: 80)
                model.resize(rows: size.rows, columns: size.columns)
            case .stop, .ended:
                return 0
            }
            effects += model.takeEffects()
            // Each effect may ask for the next (older rows after older rows); a bound keeps a
            // rule that keeps asking from wedging the screen.
            var performed = 0
            while !effects.isEmpty, performed < 64 {
                performed += 1
                let effect = effects.removeFirst()
                if effect == .quit { return 0 }
                effects += perform(effect, now: now)
            }
            draw()
            if case .state = event, let report = opened {
                opened = nil
                if let warning = report() {
                    model.notify(warning)
                    draw()
                }
            }
        }
        return 0
    }

    private func draw() {
        let frame = model.frame(output)
        terminal.draw(frame.lines, cursor: (frame.cursorRow, frame.cursorColumn))
    }

    /// Carries out one effect; a failure is shown on the screen, never thrown: the screen stays.
    private func perform(_ effect: ChatEffect, now: Int64) -> [ChatEffect] {
        do {
            switch effect {
            case .send(let text):
                do { try validateNewMessageText(text) } catch {
                    model.notify("not sent: \(error.description)")
                    return []
                }
                do {
                    _ = try Outbox(conversation).enqueue(text)
                } catch {
                    model.notify("not sent, nothing was queued: \(error)")
                }
            case .retry(let messageID):
                _ = try Outbox(conversation).requeue(messageID)
            case .markRead(let upTo):
                _ = try Outbox(conversation).wantRead(upTo: upTo)
            case .signalTyping:
                // Best effort: typing is a courtesy; a full /run must not stop the screen.
                try? channel.signalMyTyping(id, atMilliseconds: now)
            case .loadOlderStored(let before):
                let older = try conversation.snapshot(limit: Self.olderPage, before: before)
                model.prepend(older.rows(me: store.userID), hasOlder: older.hasOlder)
            case .reloadOlderStored(let from, let before):
                let page = try conversation.snapshot(limit: before - from, before: before)
                model.replaceOlder(page.rows(me: store.userID).filter { ($0.sequence ?? .max) >= from }, from: from)
            case .wantOlder(let before):
                do { try channel.wantOlder(id, before: before) } catch {
                    model.notify("cannot ask the sync worker for older messages: \(error)")
                }
            case .quit:
                break
            }
        } catch {
            model.notify("\(error)")
        }
        // What the effect's answer made the model ask for next (older rows that are still not
        // enough to fill the screen, a mark-read now that the newest row shows).
        return model.takeEffects()
    }

    /// A change in the conversation's runtime directory: one event per batch of changes, with
    /// why the watcher polls when the kernel refused it inotify. With `create` the directory is
    /// made if missing, so it can be watched before the worker writes anything (the chat screen
    /// writes there itself); without, a missing directory is not watched and the half-second
    /// tick alone notices typing (`view --follow` leaves no directories behind for a store
    /// nobody chats in). A directory that cannot be watched otherwise (removed meanwhile) leaves
    /// the tick to notice typing too.
    static func watch(_ channel: RuntimeChannel, _ id: ConversationID, create: Bool = true) -> AsyncStream<
        WatchFallback?
    > {
        let (stream, continuation) = AsyncStream.makeStream(
            of: WatchFallback?.self, bufferingPolicy: .bufferingNewest(1))
        let directory = channel.directory(of: id)
        // Watched only once checked (made when asked): never a directory another user made.
        let checked = try? channel.directory([id.rawValue] + (create ? ["typing"] : []), create: create)
        let watcher =
            checked != nil ? try? DirectoryWatcher(root: directory, depth: 1) { continuation.yield($0.polling) } : nil
        continuation.onTermination = { _ in if let watcher { StoreObserver.stopLater(watcher) } }
        return stream
    }

    /// Every source in one stream, plus a tick every half second. Without `keys` (`view
    /// --follow` reads none) the stream ends only with the store's or by a signal.
    static func merge(
        states: AsyncStream<ConversationState>, keys: AsyncStream<Key>?, channel: AsyncStream<WatchFallback?>,
        signals: AsyncStream<TerminalSignal>
    ) -> AsyncStream<ChatEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: ChatEvent.self)
        let tasks = [
            Task {
                for await state in states { continuation.yield(.state(state)) }
                continuation.yield(.ended)
            },
            Task {
                guard let keys else { return }
                for await key in keys { continuation.yield(.key(key)) }
                continuation.yield(.ended)
            },
            Task { for await polling in channel { continuation.yield(.channel(polling: polling)) } },
            Task {
                for await signal in signals { continuation.yield(signal == .resize ? .resize : .stop) }
            },
            Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(500))
                    continuation.yield(.tick)
                }
            },
        ]
        continuation.onTermination = { _ in
            for task in tasks { task.cancel() }
        }
        return stream
    }
}
