import ChatSystem

/// Runs `watch --exec`'s command once per ``HookEvent``, one at a time, in order, on a thread
/// of its own, so a slow or failing hook never holds up watching.
///
/// Events wait in a bounded queue (``capacity``); one that finds it full is dropped with a line
/// on stderr saying which. Each run is `/bin/sh -c CMD` in a process group of its own
/// (``SpawnedChild``), the event's details in its environment and the text on its standard
/// input, fed without blocking (a hook that never reads cannot wedge the runner; one that
/// exits without reading cannot end watch with SIGPIPE: the runner's thread blocks it). Its
/// output (stdout and stderr) and exit status are logged on watch's stderr. A hook still running after ``timeoutSeconds`` gets
/// SIGTERM, then SIGKILL two seconds later, sent to its whole group; ``stop()`` does the same
/// to the one running and drops those waiting.
final class HookRunner: Sendable {
    /// How many events may wait while a hook runs.
    static let capacity = 100
    /// How much of one run's output is logged, in bytes; the rest is counted.
    static let outputLimit = 16 * 1024
    /// Between SIGTERM and SIGKILL, milliseconds.
    static let graceMilliseconds = 2000

    let command: String
    let environment: Environment
    let store: String
    let timeoutSeconds: Int
    private let log: @Sendable (String) -> Void

    private struct State {
        var queue: [HookEvent] = []
        var stopping = false
    }

    private let state = Lock(State())
    private let wake: WakePipe
    private let thread = DedicatedThread()

    /// Starts the runner's thread. `environment` is watch's own, passed on to every hook.
    init(
        command: String, environment: Environment, store: String, timeoutSeconds: Int,
        log: @escaping @Sendable (String) -> Void
    ) throws(SystemError) {
        self.command = command
        self.environment = environment
        self.store = store
        self.timeoutSeconds = timeoutSeconds
        self.log = log
        wake = try WakePipe()
        try thread.start { [self] in loop() }
    }

    /// Queues `event`; never blocks. A full queue drops it and says so.
    func submit(_ event: HookEvent) {
        enum Outcome { case queued, full, stopping }
        let outcome = state.withLock { state -> Outcome in
            if state.stopping { return .stopping }
            guard state.queue.count < Self.capacity else { return .full }
            state.queue.append(event)
            return .queued
        }
        switch outcome {
        case .queued: wake.signal()
        case .full: log("chatdir watch: hook queue full (\(Self.capacity) waiting); dropped \(event.label)")
        case .stopping: break // watch is on its way out: nothing more runs
        }
    }

    /// Stops the running hook (its group gets SIGTERM, then SIGKILL), drops the waiting ones and
    /// joins the thread. Every child is reaped before this returns.
    func stop() {
        let dropped = state.withLock { state -> Int in
            state.stopping = true
            defer { state.queue.removeAll() }
            return state.queue.count
        }
        wake.signal()
        thread.join()
        if dropped > 0 {
            log("chatdir watch: stopping; \(dropped) queued hook run\(dropped == 1 ? "" : "s") not started")
        }
    }

    private var isStopping: Bool { state.withLock { $0.stopping } }

    private func loop() {
        SpawnedChild.blockBrokenPipeOnThisThread()
        while true {
            let next = state.withLock { state -> HookEvent?? in
                if state.stopping { return .some(nil) }
                return state.queue.isEmpty ? nil : .some(state.queue.removeFirst())
            }
            switch next {
            case .some(nil):
                return
            case .some(let event?):
                run(event)
            case nil:
                _ = try? Poll.wait([wake.readEnd], timeoutMilliseconds: -1)
                wake.drain()
            }
        }
    }

    /// One run, start to reaped.
    private func run(_ event: HookEvent) {
        var variables = environment.variables
        for (name, value) in event.environment(store: store) { variables[name] = value }
        var child: SpawnedChild
        do {
            child = try SpawnedChild.start(
                ["/bin/sh", "-c", command], environment: ChildProcess.environmentStrings(variables))
        } catch {
            log("chatdir watch: hook for \(event.label) could not start: \(error)")
            return
        }
        let input = Array(event.text.utf8)
        var written = 0
        if input.isEmpty { child.closeInput() }
        var logged = OutputLog(label: event.label, log: log)
        var buffer = [UInt8](repeating: 0, count: 4096)
        var outputOpen = true
        let start = Clock.monotonicNanoseconds()
        var termSentAt: UInt64?
        var status: Int32?
        while status == nil {
            // Feed the input whenever the pipe takes some; a child that closed it is done with it.
            if child.inputDescriptor != nil {
                do {
                    written += try child.writeInput(input, from: written)
                    if written >= input.count { child.closeInput() }
                } catch {
                    child.closeInput()
                }
            }
            var descriptors = [wake.readEnd]
            if outputOpen { descriptors.append(child.output.rawValue) }
            // Poll cannot ask for input and output at once: while input is pending, look again soon.
            let timeout = child.inputDescriptor != nil || !outputOpen ? 20 : 500
            let ready = (try? Poll.wait(descriptors, timeoutMilliseconds: timeout)) ?? []
            if ready.first?.readyToRead == true { wake.drain() }
            if outputOpen, ready.count > 1, ready[1].readyToRead {
                while let count = try? child.readOutput(into: &buffer) {
                    if count == 0 {
                        outputOpen = false
                        break
                    }
                    logged.add(buffer[0..<count])
                }
            }
            status = child.wait(block: false)
            if status != nil { break }
            let elapsed = (Clock.monotonicNanoseconds() - start) / 1_000_000
            if let sent = termSentAt {
                if (Clock.monotonicNanoseconds() - sent) / 1_000_000 >= UInt64(Self.graceMilliseconds) {
                    child.signalGroup(.kill)
                    child.closeInput()
                    status = child.wait(block: true)
                }
            } else if isStopping || elapsed >= UInt64(timeoutSeconds) * 1000 {
                log(
                    isStopping
                        ? "chatdir watch: stopping the hook for \(event.label) (SIGTERM)"
                        : "chatdir watch: hook for \(event.label) still running after \(timeoutSeconds) s; stopping it (SIGTERM)"
                )
                child.signalGroup(.terminate)
                termSentAt = Clock.monotonicNanoseconds()
            }
        }
        // Whatever is left in the pipe (a grandchild that outlived the shell is gone with its group).
        while outputOpen, let count = try? child.readOutput(into: &buffer), count > 0 { logged.add(buffer[0..<count]) }
        logged.finish()
        let code = status ?? 127
        log(
            "chatdir watch: hook for \(event.label) "
                + (code == 0
                    ? "exited 0" : code > 128 ? "killed by signal \(code - 128)" : "failed with exit status \(code)"))
    }

    /// A run's output as log lines, each prefixed with what it was for, up to ``outputLimit``.
    private struct OutputLog {
        var label: String
        var log: @Sendable (String) -> Void
        var partial: [UInt8] = []
        var total = 0

        mutating func add(_ bytes: ArraySlice<UInt8>) {
            let room = max(0, HookRunner.outputLimit - total)
            total += bytes.count
            partial.append(contentsOf: bytes.prefix(room))
            while let newline = partial.firstIndex(of: 0x0A) {
                emit(partial[..<newline])
                partial.removeSubrange(...newline)
            }
        }

        mutating func finish() {
            if !partial.isEmpty { emit(partial[...]) }
            partial = []
            if total > HookRunner.outputLimit {
                log(
                    "chatdir watch: hook for \(label): \(total - HookRunner.outputLimit) more bytes of output not shown"
                )
            }
        }

        private func emit(_ line: ArraySlice<UInt8>) {
            log("chatdir watch: hook for \(label): " + String(decoding: line, as: UTF8.self))
        }
    }
}
