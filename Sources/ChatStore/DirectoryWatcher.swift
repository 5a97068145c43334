import ChatSystem
import Synchronization

/// Watches a directory tree with inotify and calls a handler after every committed change.
///
/// The root and its subdirectories down to `depth` are watched (inotify is not recursive); a
/// directory that appears later gets a watch and a scan, because files made before its watch
/// existed produce no events. Temp files (names starting with `.`) are ignored. IN_Q_OVERFLOW and
/// read errors become a batch with ``WatchBatch/rescan`` set.
///
/// When the kernel refuses a watch (the per-user limit `fs.inotify.max_user_watches` reached,
/// or no memory) or inotify itself (`fs.inotify.max_user_instances`), the directories it would
/// not watch, and everything below them, are listed every `pollInterval` instead
/// (``PolledDirectories``), and what changed comes in the same batches, up to that much later.
/// From then on every batch carries the reason (``WatchBatch/polling``), for the caller to say
/// so once: nothing is silently left unwatched. Any other error on the root still throws.
///
/// The blocking `poll(2)` runs on a dedicated thread, never on the cooperative pool. The handler
/// runs on that thread, one batch at a time: while it works, new events queue in the kernel and
/// arrive together in the next batch (that is the coalescing; no timer delays a change). The first
/// batch is a rescan, delivered as soon as the watches are in place.
///
/// ``stop()`` (or releasing the watcher) wakes the thread through a pipe and waits for it to end;
/// the thread closes the inotify descriptor as it ends, the pipe closes with the watcher.
public final class DirectoryWatcher: Sendable {
    /// The watched directory.
    public let root: String
    private let core: Core
    private let thread: DedicatedThread

    /// How often directories inotify would not watch are listed, in milliseconds.
    public static let defaultPollInterval = 1000

    /// Open watchers per watched root. Counted per root so that a leak test looks only at its
    /// own directory, whatever other tests running at the same time hold open.
    private static let open = Lock<[String: Int]>([:])

    /// Watchers of `root` whose descriptors are open in this process right now (for leak tests).
    public static func openWatchers(root: String) -> Int {
        open.withLock { $0[root] ?? 0 }
    }

    private static func count(_ root: String, _ delta: Int) {
        open.withLock { counts in
            let new = (counts[root] ?? 0) + delta
            counts[root] = new == 0 ? nil : new
        }
    }

    /// Starts watching `root` and the directories below it down to `depth` levels (0: the root
    /// only). When it returns, the watches are in place: a change made afterwards is seen.
    /// - Parameters:
    ///   - idleInterval: milliseconds without events after which the handler gets an idle batch; -1 for never.
    ///   - pollInterval: milliseconds between looks at the directories inotify would not watch.
    ///   - handler: called on the watcher's thread with each batch.
    /// - Throws: ``SystemError`` when the root cannot be watched (missing, not a directory, no
    ///   permission). The per-user inotify limits throw nothing: the watcher polls instead.
    public convenience init(
        root: String, depth: Int, idleInterval: Int32 = -1, pollInterval: Int = DirectoryWatcher.defaultPollInterval,
        handler: @escaping @Sendable (WatchBatch) -> Void
    ) throws(SystemError) {
        try self.init(
            root: root, depth: depth, idleInterval: idleInterval, pollInterval: pollInterval, paused: false,
            handler: handler)
    }

    /// As the public initializer; `paused` keeps the thread from reading events until ``resume()``
    /// (tests use it to overflow the kernel's queue for real).
    init(
        root: String, depth: Int, idleInterval: Int32, pollInterval: Int = DirectoryWatcher.defaultPollInterval,
        paused: Bool,
        handler: @escaping @Sendable (WatchBatch) -> Void
    ) throws(SystemError) {
        self.root = root
        core = try Core(
            root: root, depth: depth, idleInterval: idleInterval, pollInterval: pollInterval, paused: paused,
            handler: handler)
        Self.count(root, 1)
        thread = DedicatedThread()
        let core = core
        do {
            try thread.start { core.run() }
        } catch {
            core.closeDescriptors()
            Self.count(root, -1)
            throw error
        }
    }

    /// Stops the thread and closes the descriptors. Safe to call more than once and from the
    /// handler (then the thread finishes after the handler returns).
    public func stop() {
        guard core.requestStop() else { return }
        // From the handler, `join` detaches: the thread closes the inotify descriptor when the
        // handler returns. The wake-up pipe closes with the last reference to it.
        thread.join()
        Self.count(root, -1)
    }

    /// Lets a watcher made with `paused: true` start reading events.
    func resume() {
        core.resume()
    }

    deinit {
        stop()
    }

    /// The thread's side: the inotify descriptor, the table and the polled directories are
    /// touched only by the watcher thread once it runs (and by `init` before), so they need no
    /// lock; the flags are atomics.
    private final class Core: @unchecked Sendable {
        let root: String
        /// The inotify descriptor from `init` until the thread takes it (the thread closes it
        /// when it ends); still here only if the thread never started. Nil from the start when
        /// the kernel refused inotify or the root's watch: then the whole tree is polled.
        var inotify: FileDescriptor?
        let wake: WakePipe
        let idleInterval: Int32
        let pollInterval: Int
        let handler: @Sendable (WatchBatch) -> Void
        var table: WatchTable
        var polled: PolledDirectories
        /// Why directories are polled: the first refusal, kept for every later batch.
        var fallback: WatchFallback?
        var buffer: [UInt8]
        let stopping = Atomic<Bool>(false)
        let paused: Atomic<Bool>

        init(
            root: String, depth: Int, idleInterval: Int32, pollInterval: Int, paused: Bool,
            handler: @escaping @Sendable (WatchBatch) -> Void
        ) throws(SystemError) {
            self.root = root
            self.idleInterval = idleInterval
            self.pollInterval = max(1, pollInterval)
            self.handler = handler
            self.paused = Atomic(paused)
            table = WatchTable(maxDepth: max(0, depth))
            polled = PolledDirectories(root: root, maxDepth: max(0, depth))
            buffer = [UInt8](repeating: 0, count: Inotify.bufferSize)
            inotify = nil
            // A throw below closes what was opened: each descriptor is owned by exactly one value.
            wake = try WakePipe()
            let opened: FileDescriptor
            do {
                opened = try Inotify.open(for: root)
            } catch {
                try pollRoot(refused: error)
                return
            }
            let watch: Int32
            do {
                watch = try Inotify.addWatch(opened, path: root, mask: .storeWatch)
            } catch {
                // An instance without even the root's watch is no use: the tree is polled whole.
                opened.close()
                try pollRoot(refused: error)
                return
            }
            table.register(watch, directory: "")
            var ignored: [WatchedChange] = []
            addSubdirectories(of: "", opened, report: false, into: &ignored)
            inotify = consume opened
        }

        /// The root could not be watched: polls the whole tree when a limit refused it, throws otherwise.
        private func pollRoot(refused error: SystemError) throws(SystemError) {
            try fallBack(error, path: root)
            // The root must be there to be polled: a missing one fails as its watch would.
            _ = try Sys.listDirectory(root)
            var ignored: [WatchedChange] = []
            polled.add("", report: false, into: &ignored)
        }

        /// Notes why directories are polled when `error` is one of the kernel's inotify limits
        /// (the first reason is the one kept); rethrows any other error.
        func fallBack(_ error: SystemError, path: String) throws(SystemError) {
            guard let limit = InotifyLimit.refusing(error) else { throw error }
            if fallback == nil {
                fallback = WatchFallback(limit: limit, path: path, intervalMilliseconds: pollInterval)
            }
        }

        func absolute(_ directory: String) -> String {
            directory.isEmpty ? root : root + "/" + directory
        }

        /// Watches the subdirectories of `directory` within the depth; with `report`, every file
        /// found is reported as written (it was made before the watch could see it).
        func addSubdirectories(
            of directory: String, _ inotify: borrowing FileDescriptor, report: Bool, into changes: inout [WatchedChange]
        ) {
            guard let names = try? Sys.listDirectory(absolute(directory)) else { return }
            for name in names.sorted() where name.utf8.first != UInt8(ascii: ".") {
                let path = directory.isEmpty ? name : directory + "/" + name
                if Sys.kind(of: absolute(path)) == .directory {
                    if table.wantsWatch(below: directory) { watch(path, inotify, report: report, into: &changes) }
                } else if report {
                    changes.append(WatchedChange(directory: directory, name: name, kind: .written))
                }
            }
        }

        /// Adds a watch on `directory` (relative), then scans it: watch first, so nothing made in
        /// between is missed (it may be reported twice, which costs a re-read, not a miss). A
        /// directory the kernel will not watch is polled from now on (it and everything below).
        func watch(
            _ directory: String, _ inotify: borrowing FileDescriptor, report: Bool, into changes: inout [WatchedChange]
        ) {
            if polled.contains(directory) {
                polled.add(directory, report: report, into: &changes)
                return
            }
            let watch: Int32
            do {
                watch = try Inotify.addWatch(inotify, path: absolute(directory), mask: .storeWatch)
            } catch {
                // Any other error: the directory went away meanwhile, and its parent's events say so.
                guard (try? fallBack(error, path: absolute(directory))) != nil else { return }
                polled.add(directory, report: report, into: &changes)
                return
            }
            table.register(watch, directory: directory)
            addSubdirectories(of: directory, inotify, report: report, into: &changes)
        }

        func requestStop() -> Bool {
            guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return false }
            wake.signal()
            return true
        }

        func resume() {
            paused.store(false, ordering: .releasing)
            wake.signal()
        }

        /// Closes the inotify descriptor of a thread that never started.
        func closeDescriptors() {
            inotify.take()?.close()
        }

        func run() {
            handler(WatchBatch(rescan: true, polling: fallback))
            if let inotify = inotify.take() {
                loop(inotify: inotify.rawValue) { broken in readEvents(inotify, broken: &broken) }
                inotify.close()
            } else {
                loop(inotify: nil) { _ in WatchBatch() }
            }
        }

        /// Waits for events on `inotify` (read with `read`), for the next look at the polled
        /// directories and for the idle interval, and hands each batch to the handler, until stopped.
        func loop(inotify: Int32?, read: (inout Bool) -> WatchBatch) {
            var broken = false
            var nextPoll = Clock.monotonicMilliseconds() + pollInterval
            var lastBatch = Clock.monotonicMilliseconds()
            while !stopping.load(ordering: .acquiring) {
                let isPaused = paused.load(ordering: .acquiring)
                let reading = inotify != nil && !broken && !isPaused
                let polling = !polled.isEmpty && !broken && !isPaused
                let idling = idleInterval >= 0 && (reading || polling)
                var descriptors = [wake.readEnd]
                if reading, let inotify { descriptors.append(inotify) }
                let now = Clock.monotonicMilliseconds()
                var timeout = -1
                if polling { timeout = max(0, nextPoll - now) }
                if idling {
                    let idle = max(0, lastBatch + Int(idleInterval) - now)
                    timeout = timeout < 0 ? idle : min(timeout, idle)
                }
                let readable: [PollResult]
                do {
                    readable = try Poll.wait(descriptors, timeoutMilliseconds: timeout)
                } catch {
                    broken = true
                    continue
                }
                if stopping.load(ordering: .acquiring) { break }
                if readable[0].readyToRead { wake.drain() }
                var batch = WatchBatch()
                if readable.count > 1 && readable[1].readyToRead { batch = read(&broken) }
                if polling && Clock.monotonicMilliseconds() >= nextPoll {
                    let found = polled.scan()
                    batch.changes += found.changes
                    batch.rescan = batch.rescan || found.rescan
                    nextPoll = Clock.monotonicMilliseconds() + pollInterval
                }
                if !batch.changes.isEmpty || batch.rescan {
                    batch.changes = Self.merged(batch.changes)
                    batch.polling = fallback
                    handler(batch)
                    lastBatch = Clock.monotonicMilliseconds()
                } else if idling && Clock.monotonicMilliseconds() - lastBatch >= Int(idleInterval) {
                    handler(WatchBatch(isIdle: true, polling: fallback))
                    lastBatch = Clock.monotonicMilliseconds()
                }
            }
        }

        /// Reads until the queue is empty and turns the events into one batch.
        func readEvents(_ inotify: borrowing FileDescriptor, broken: inout Bool) -> WatchBatch {
            var changes: [WatchedChange] = []
            var rescan = false
            while true {
                let count: Int
                do {
                    count = try Inotify.read(inotify, into: &buffer)
                } catch {
                    // The descriptor is unusable: say so once (re-read everything), then only wait for stop.
                    broken = true
                    rescan = true
                    break
                }
                if count == 0 { break }
                let events = buffer.withUnsafeBytes {
                    InotifyEvent.parse(UnsafeRawBufferPointer(rebasing: $0[0..<count]))
                }
                for event in events {
                    for action in table.handle(event) {
                        switch action {
                        case .report(let change): changes.append(change)
                        case .watch(let directory): watch(directory, inotify, report: true, into: &changes)
                        case .unwatch(let watch): Inotify.removeWatch(inotify, watch)
                        case .rescan: rescan = true
                        }
                    }
                }
            }
            if rescan {
                // Directories made while events were lost have no watch yet.
                var ignored: [WatchedChange] = []
                addSubdirectories(of: "", inotify, report: false, into: &ignored)
            }
            return WatchBatch(changes: Self.merged(changes), rescan: rescan)
        }

        /// One change per path, in first-seen order, carrying the last kind seen.
        static func merged(_ changes: [WatchedChange]) -> [WatchedChange] {
            guard changes.count > 1 else { return changes }
            var index: [String: Int] = [:]
            var result: [WatchedChange] = []
            result.reserveCapacity(changes.count)
            for change in changes {
                let path = change.path
                if let position = index[path] {
                    result[position].kind = change.kind
                } else {
                    index[path] = result.count
                    result.append(change)
                }
            }
            return result
        }
    }
}
