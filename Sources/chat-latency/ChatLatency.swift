import ChatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The three measurements, each on real `chatdir` processes in the run's scratch directory:
/// `chatdir chat` on pseudo-terminals, `chatdir seed`, `init`, `serve` and `sync --live` beside it.
final class ChatLatency: @unchecked Sendable {
    let options: LatencyOptions
    let root: String
    let children: Children
    /// What the run is doing now, for the deadline's message (set on the main thread, read by
    /// the watchdog).
    let phase = Lock<String>("starting")

    init(options: LatencyOptions, root: String, children: Children) {
        self.options = options
        self.root = root
        self.children = children
    }

    private var chatdir: String { options.chatdir }

    private func setPhase(_ text: String) {
        phase.withLock { $0 = text }
    }

    /// Every figure `--only` asks for, in order.
    func run() throws(LatencyFailure) -> [Figure] {
        var figures: [Figure] = []
        let only = options.only
        if only.contains(.keys) || only.contains(.enter) {
            let (keys, enter) = try measureOneScreen(keys: only.contains(.keys), enter: only.contains(.enter))
            figures += [keys, enter].compactMap { $0 }
        }
        if only.contains(.typing) {
            figures.append(try measureTyping())
        }
        return figures
    }

    // MARK: One screen over a seeded store: keys and Enter

    private func measureOneScreen(keys: Bool, enter: Bool) throws(LatencyFailure) -> (Figure?, Figure?) {
        setPhase("seeding \(options.messages) messages")
        let store = root + "/seeded"
        try children.run(
            "chatdir seed", [chatdir, "seed", store, "--conversations", "1", "--messages", String(options.messages)],
            log: root + "/seed.log", timeoutSeconds: 120)
        let runtime = try Scratch.makeDirectory("run", in: root)
        setPhase("opening chatdir chat c1")
        let screen = try PseudoTerminal(
            "chatdir chat c1 (\(options.messages) messages)", [chatdir, "chat", "c1", "--store", store],
            environment: ["XDG_RUNTIME_DIR": runtime], cursorEnds: true, children: children)
        defer { screen.close() }
        let prompt = try promptColumn(of: screen)
        var keyFigure: Figure?
        var enterFigure: Figure?
        if keys {
            setPhase("key → input line")
            keyFigure = try measureKeys(screen, prompt: prompt)
        }
        if enter {
            setPhase("Enter → pending row")
            enterFigure = try measureEnter(screen, prompt: prompt)
        }
        return (keyFigure, enterFigure)
    }

    /// Waits for the screen's first frame with its rows and input line; the column where typed
    /// text starts (the cursor's column on the empty input line).
    private func promptColumn(of screen: PseudoTerminal) throws(LatencyFailure) -> Int {
        let frame = try screen.waitForFrame(
            after: 0, within: 30, "its first frame with the status line and the input line"
        ) {
            $0.cursor != nil && $0.contains("sync worker")
        }
        guard let cursor = frame.cursor else {
            throw LatencyFailure("\(screen.name): its first frame placed no cursor")
        }
        return cursor.column
    }

    /// Ctrl-U, and the frame with the input line empty again.
    private func clearInput(_ screen: PseudoTerminal, prompt: Int) throws(LatencyFailure) {
        let mark = screen.frameCount
        try screen.type([0x15])
        _ = try screen.waitForFrame(after: mark, within: 10, "the input line emptied by Ctrl-U") {
            $0.cursor?.column == prompt
        }
    }

    /// One printable byte at a time; the time to the frame whose input line holds it, with the
    /// cursor after it. The line is emptied (untimed) every 40 characters so it never wraps.
    private func measureKeys(_ screen: PseudoTerminal, prompt: Int) throws(LatencyFailure) -> Figure {
        var figure = Figure(key: "keys", name: "key → redrawn input line", goal: (.p99, 5))
        let letters = Array("abcdefghijklmnopqrstuvwxyz".utf8)
        var typed: [UInt8] = []
        for sample in 0..<options.keySamples {
            if typed.count == 40 {
                try clearInput(screen, prompt: prompt)
                typed = []
            }
            typed.append(letters[sample % letters.count])
            let expected = String(decoding: typed, as: UTF8.self)
            let column = prompt + typed.count
            let mark = screen.frameCount
            let start = try screen.type([typed[typed.count - 1]])
            let frame = try screen.waitForFrame(
                after: mark, within: 10, "the input line \"\(expected)\" (key \(sample + 1))"
            ) {
                $0.cursor?.column == column && $0.cursorLine?.contains(expected) == true
            }
            figure.samples.append(Double(frame.at - start) / 1e6)
            // A person's keys come tens of milliseconds apart; the next never queues behind this one.
            SystemThread.sleep(milliseconds: 5)
        }
        try clearInput(screen, prompt: prompt)
        return figure
    }

    /// A unique text typed (untimed, at once), then Enter; the time to the frame that shows it
    /// as a row with the pending tick.
    private func measureEnter(_ screen: PseudoTerminal, prompt: Int) throws(LatencyFailure) -> Figure {
        var figure = Figure(key: "enter", name: "Enter → pending row (outbox write included)", goal: (.p50, 10))
        let run = String(Clock.nanosecondsSince1970() % 1_000_000, radix: 36)
        for sample in 0..<options.enterSamples {
            let text = "enter-\(run)-\(sample + 1)"
            var mark = screen.frameCount
            try screen.type(Array(text.utf8))
            _ = try screen.waitForFrame(after: mark, within: 10, "\"\(text)\" typed on the input line") {
                $0.cursor?.column == prompt + text.utf8.count && $0.cursorLine?.contains(text) == true
            }
            mark = screen.frameCount
            let start = try screen.type([UInt8(ascii: "\r")])
            let frame = try screen.waitForFrame(after: mark, within: 10, "\"\(text)\" as a pending row (◷) after Enter")
            { frame in
                frame.lines.contains { $0.contains(text) && $0.contains("◷") }
            }
            figure.samples.append(Double(frame.at - start) / 1e6)
            SystemThread.sleep(milliseconds: 5)
        }
        return figure
    }

    // MARK: Typing across two workers and the reference server

    private func measureTyping() throws(LatencyFailure) -> Figure {
        setPhase("starting chatdir serve")
        let data = root + "/server"
        try children.run(
            "cp", ["/bin/cp", "-R", try sampleServerData(), data], log: root + "/cp.log", timeoutSeconds: 60)
        let serveLog = root + "/serve.log"
        _ = try children.spawn(
            "chatdir serve", [chatdir, "serve", "--data", data, "--port", "0"], output: .log(serveLog))
        let url = try serverURL(log: serveLog)

        var stores: [String: String] = [:]
        for user in ["alice", "bob"] {
            setPhase("chatdir init and sync --live for \(user)")
            let store = root + "/" + user
            try children.run(
                "chatdir init (\(user))", [chatdir, "init", "--user", user, "--server", url, store],
                log: root + "/init-\(user).log", timeoutSeconds: 30)
            let runtime = try Scratch.makeDirectory("run-\(user)", in: root)
            _ = try children.spawn(
                "chatdir sync --live (\(user))", [chatdir, "sync", "--live", "--store", store],
                environment: ["CHATDIR_TOKEN": "\(user)-token", "XDG_RUNTIME_DIR": runtime],
                output: .log(root + "/sync-\(user).log"))
            stores[user] = store
            stores[user + "-runtime"] = runtime
        }
        setPhase("waiting for both stores to hold alice-bob")
        for user in ["alice", "bob"] {
            let info = (stores[user] ?? "") + "/conversations/alice-bob/conversation.json"
            try waitForFile(info, within: 60, "\(user)'s worker to sync conversation alice-bob")
        }

        setPhase("opening chatdir chat alice-bob for alice and bob")
        var screens: [PseudoTerminal] = []
        defer { for screen in screens { screen.close() } }
        for user in ["alice", "bob"] {
            screens.append(
                try PseudoTerminal(
                    "chatdir chat alice-bob (\(user))", [chatdir, "chat", "alice-bob", "--store", stores[user] ?? ""],
                    environment: ["XDG_RUNTIME_DIR": stores[user + "-runtime"] ?? ""], cursorEnds: true,
                    children: children))
        }
        let alice = screens[0]
        let bob = screens[1]
        let prompt = try promptColumn(of: alice)
        for screen in screens {
            _ = try screen.waitForFrame(after: 0, within: 30, "the status line saying the sync worker runs") {
                $0.contains("sync worker running")
            }
        }

        // One untimed round first: the workers' live sockets may still be opening.
        setPhase("typing warm-up")
        var lastKey: UInt64 = 0
        var warmedUp = false
        for _ in 0..<5 where !warmedUp {
            try spaceKeys(after: lastKey)
            let mark = bob.frameCount
            lastKey = try alice.type([UInt8(ascii: "w")])
            if let shown = try bob.frameIfAny(
                after: mark, within: 10, "\"alice is typing\"", accept: { $0.contains("alice is typing") })
            {
                warmedUp = true
                try clearInput(alice, prompt: prompt)
                try waitUntilGone(bob, after: shown.number)
            } else {
                try clearInput(alice, prompt: prompt)
            }
        }
        guard warmedUp else {
            throw LatencyFailure(
                "bob's screen never showed \"alice is typing\" in 5 tries, 10 s each"
                    + Children.tail(of: root + "/sync-alice.log")
                    + Children.tail(of: root + "/sync-bob.log"))
        }

        var figure = Figure(
            key: "typing", name: "key on alice's screen → \"alice is typing\" on bob's", goal: (.p50, 50))
        let letters = Array("typing".utf8)
        for sample in 0..<options.typingSamples {
            setPhase("typing sample \(sample + 1) of \(options.typingSamples)")
            try spaceKeys(after: lastKey)
            let mark = bob.frameCount
            lastKey = try alice.type([letters[sample % letters.count]])
            let shown = try bob.frameIfAny(after: mark, within: 10, "\"alice is typing\" (sample \(sample + 1))") {
                $0.contains("alice is typing")
            }
            try clearInput(alice, prompt: prompt)
            if let shown {
                figure.samples.append(Double(shown.at - lastKey) / 1e6)
                try waitUntilGone(bob, after: shown.number)
            } else {
                figure.lost += 1
            }
        }
        return figure
    }

    /// The screen sends at most one typing signal per 3 s: the next key comes 3.5 s after the last.
    private func spaceKeys(after last: UInt64) throws(LatencyFailure) {
        guard last > 0 else { return }
        while Clock.monotonicNanoseconds() < last + 3_500_000_000 {
            try children.check(while: "spacing the typing samples")
            SystemThread.sleep(milliseconds: 20)
        }
    }

    /// The typing line disappears 6 s after the last signal.
    private func waitUntilGone(_ bob: PseudoTerminal, after mark: Int) throws(LatencyFailure) {
        _ = try bob.waitForFrame(
            after: mark, within: 15, "\"alice is typing\" gone again (it expires 6 s after the last signal)"
        ) {
            !$0.contains("alice is typing")
        }
    }

    /// `http://127.0.0.1:PORT`, the first line `chatdir serve` prints.
    private func serverURL(log: String) throws(LatencyFailure) -> String {
        let deadline = Clock.monotonicMilliseconds() + 30_000
        while true {
            if let bytes = Scratch.read(log), let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: bytes[..<newline], as: UTF8.self)
                guard line.hasPrefix("http://") else {
                    throw LatencyFailure(
                        "chatdir serve printed \(line.debugDescription) where its URL was expected"
                            + Children.tail(of: log))
                }
                return line
            }
            try children.check(while: "waiting for chatdir serve to print its URL")
            guard Clock.monotonicMilliseconds() < deadline else {
                throw LatencyFailure("chatdir serve printed no URL within 30 s" + Children.tail(of: log))
            }
            SystemThread.sleep(milliseconds: 10)
        }
    }

    private func waitForFile(_ path: String, within seconds: Int, _ what: String) throws(LatencyFailure) {
        let deadline = Clock.monotonicMilliseconds() + seconds * 1000
        while !Scratch.exists(path) {
            try children.check(while: "waiting for \(what)")
            guard Clock.monotonicMilliseconds() < deadline else {
                throw LatencyFailure(
                    "no \(path) within \(seconds) s: waited for \(what)" + Children.tail(of: root + "/sync-alice.log")
                        + Children.tail(of: root + "/sync-bob.log"))
            }
            SystemThread.sleep(milliseconds: 20)
        }
    }

    /// `--sample-data`, else SampleData/server in the working directory or in the package this
    /// executable was built in (`.build/<triple>/<config>/chat-latency`, up to four levels up).
    private func sampleServerData() throws(LatencyFailure) -> String {
        if let given = options.sampleData { return given }
        var candidates = ["SampleData/server"]
        var directory = LatencyOptions.directoryOfThisExecutable()
        for _ in 0..<4 {
            guard let slash = directory.lastIndex(of: "/"), slash != directory.startIndex else { break }
            directory = String(directory[..<slash])
            candidates.append(directory + "/SampleData/server")
        }
        guard let found = candidates.first(where: { Scratch.exists($0 + "/users.json") }) else {
            throw LatencyFailure(
                "SampleData/server not found (looked in \(candidates.joined(separator: ", "))); run from the package root or pass --sample-data DIR"
            )
        }
        return found
    }
}
