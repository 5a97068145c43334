// chat-latency: the chat screen's speed, measured on the real `chatdir chat`
// in pseudo-terminals, as a person at a terminal sees it:
//
//   1. a key written to the terminal → the frame with the redrawn input line (10,000 messages
//      in the conversation), 300 samples;
//   2. Enter → the frame showing the message as a pending row (the durable outbox write
//      included), 100 samples;
//   3. a key on alice's screen → "alice is typing" on bob's, through alice's `chatdir sync
//      --live`, `chatdir serve` and bob's worker, about 12 samples 7 s apart.
//
// Prints p50/p90/p99/max of each as a markdown table (or JSON with --json). Every child is
// stopped (SIGTERM, SIGKILL after 5 s) and the scratch directory removed on every way out: the
// end, a failure (exit 1, the child that died or the frame that never came named on stderr),
// the overall deadline (exit 1), SIGINT/SIGTERM/SIGHUP. BENCHMARKS.md, "Chat screen latency".
//
//   CHATDIR_RELEASE=1 swift build -c release --product chat-latency --product chatdir
//   .build/release/chat-latency [--keys 300] [--enters 100] [--typing 12] [--json [FILE]]
import ChatSystem

#if canImport(Glibc)
    import Glibc
#endif

func fail(_ message: String, status: Int32) -> Never {
    _ = try? StandardIO.write(StandardIO.error, "chat-latency: " + message + "\n")
    exit(status)
}

let options: LatencyOptions
do {
    options = try LatencyOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    let isHelp = CommandLine.arguments.contains("--help") || CommandLine.arguments.contains("-h")
    if isHelp {
        _ = try? StandardIO.write(StandardIO.output, error.description + "\n")
        exit(0)
    }
    fail(error.description, status: 64)
}
guard access(options.chatdir, X_OK) == 0 else {
    fail(
        "no chatdir binary at \(options.chatdir); build it (swift build -c release --product chatdir) or pass --chatdir PATH",
        status: 64)
}

Signal.brokenPipe.ignore()
let children = Children()
let root: String
do {
    root = try Scratch.makeDirectory("chat-latency")
} catch {
    fail(error.description, status: 1)
}
let latency = ChatLatency(options: options, root: root, children: children)

/// Stops every child and removes the scratch directory, once; a second caller (the deadline
/// or a signal racing the end) waits for the first to finish.
let cleanedUp = Lock<Bool>(false)
@Sendable func cleanUp() {
    cleanedUp.withLock { done in
        guard !done else { return }
        done = true
        children.stopAll()
        if options.keep {
            _ = try? StandardIO.write(StandardIO.error, "chat-latency: kept \(root) (stores, server data, logs)\n")
        } else {
            Scratch.remove(root)
        }
    }
}

/// Set when a signal or the deadline ends the run: children it stops then fail the main
/// thread's waits, which must not report them as deaths.
let stopping = Lock<Bool>(false)

/// The main thread's way out on a failure.
func failed(_ error: LatencyFailure) -> Never {
    if stopping.withLock({ $0 }) {
        cleanUp()
        // The signal's or the deadline's thread is exiting the process.
        while true { SystemThread.sleep(milliseconds: 1000) }
    }
    cleanUp()
    fail(error.description, status: 1)
}

let signals = SignalWatch([.interrupt, .terminate, .hangUp]) { signal in
    stopping.withLock { $0 = true }
    _ = try? StandardIO.write(
        StandardIO.error, "chat-latency: \(signal.name) during \(latency.phase.withLock { $0 }); stopping every child\n"
    )
    cleanUp()
    exit(128 + signal.rawValue)
}
do {
    let deadline = options.deadlineSeconds
    try SystemThread.detach {
        SystemThread.sleep(milliseconds: deadline * 1000)
        stopping.withLock { $0 = true }
        _ = try? StandardIO.write(
            StandardIO.error,
            "chat-latency: the deadline of \(deadline) s passed during \(latency.phase.withLock { $0 }); stopping every child\n"
        )
        cleanUp()
        exit(1)
    }
} catch {
    cleanUp()
    fail("no thread for the deadline: \(error)", status: 1)
}

/// The first three fields of /proc/loadavg: a run disturbed by other work shows in them.
func loadAverage() -> String {
    guard let bytes = Scratch.read("/proc/loadavg") else { return "unknown" }
    return String(decoding: bytes, as: UTF8.self).split(separator: " ").prefix(3).joined(separator: " ")
}

let loadAtStart = loadAverage()
let figures: [Figure]
do {
    figures = try latency.run()
} catch {
    failed(error)
}
let loadAtEnd = loadAverage()
cleanUp()
signals.cancel()

let settings: [(String, String)] = [
    ("messages", String(options.messages)),
    ("terminal", "\"\(PseudoTerminal.columns)x\(PseudoTerminal.rows)\""),
    ("loadavg_start", "\"\(loadAtStart)\""),
    ("loadavg_end", "\"\(loadAtEnd)\""),
    ("chatdir", "\"" + options.chatdir.map { $0 == "\"" || $0 == "\\" ? "\\\($0)" : "\($0)" }.joined() + "\""),
]
let json = Figure.json(figures, settings: settings)
if let path = options.json, path != "-" {
    do {
        let file = try FileDescriptor.open(path, [.writeOnly, .create, .truncate], mode: 0o644)
        try file.writeAll(Array((json + "\n").utf8), path: path)
    } catch {
        fail("cannot write \(path): \(error)", status: 1)
    }
}
var report: String
if options.json == "-" {
    report = json
} else {
    report =
        "chat-latency: chatdir chat on a \(PseudoTerminal.columns)x\(PseudoTerminal.rows) pseudo-terminal, \(options.messages) messages in the conversation of keys and Enter; "
        + "load average at start \(loadAtStart), at end \(loadAtEnd)\n\n"
        + Figure.table(figures)
}
_ = try? StandardIO.write(StandardIO.output, report + "\n")
if let lossy = figures.first(where: { $0.lost > 0 }) {
    fail("\(lossy.lost) sample(s) of \"\(lossy.name)\" never arrived (the table counts them as lost)", status: 1)
}
