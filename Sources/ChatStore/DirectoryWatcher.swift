import ChatSystem
import Synchronization

/// Watches a directory tree with inotify and calls a handler after every committed change.
///
/// The root and its subdirectories down to `depth` are watched (inotify is not recursive); a
/// directory that appears later gets a watch and a scan, because files made before its watch
/// existed produce no events. Temp files (names starting with `.`) are ignored. IN_Q_OVERFLOW and
/// read errors become a batch with ``WatchBatch/rescan`` set.
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
    ///   - handler: called on the watcher's thread with each batch.
    /// - Throws: ``SystemError`` when the root cannot be watched (missing, not a directory, or the
    ///   per-user inotify limits in /proc/sys/fs/inotify reached).
    public convenience init(root: String, depth: Int, idleInterval: Int32 = -1, handler: @escaping @Sendable (WatchBatch) -> Void) throws(SystemError) {
        try self.init(root: root, depth: depth, idleInterval: idleInterval, paused: false, handler: handler)
    }

    /// As the public initializer; `paused` keeps the thread from reading events until ``resume()``
    /// (tests use it to overflow the kernel's queue for real).
    init(root: String, depth: Int, idleInterval: Int32, paused: Bool, handler: @escaping @Sendable (WatchBatch) -> Void) throws(SystemError) {
        self.root = root
        core = try Core(root: root, depth: depth, idleInterval: idleInterval, paused: paused, handler: handler)
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

    /// The thread's side: the inotify descriptor and the table are touched only by the watcher
    /// thread once it runs (and by `init` before), so they need no lock; the flags are atomics.
    private final class Core: @unchecked Sendable {
        let root: String
        /// The inotify descriptor from `init` until the thread takes it (the thread closes it
        /// when it ends); still here only if the thread never started.
        var inotify: FileDescriptor?
        let wake: WakePipe
        let idleInterval: Int32
        let handler: @Sendable (WatchBatch) -> Void
        var table: WatchTable
        var buffer: [UInt8]
        let stopping = Atomic<Bool>(false)
        let paused: Atomic<Bool>

        init(root: String, depth: Int, idleInterval: Int32, paused: Bool, handler: @escaping @Sendable (WatchBatch) -> Void) throws(SystemError) {
            self.root = root
            self.idleInterval = idleInterval
            self.handler = handler
            self.paused = Atomic(paused)
            table = WatchTable(maxDepth: max(0, depth))
            buffer = [UInt8](repeating: 0, count: Inotify.bufferSize)
            // A throw below closes what was opened: each descriptor is owned by exactly one value.
            let inotify = try Inotify.open()
            wake = try WakePipe()
            let watch = try Inotify.addWatch(inotify, path: root, mask: .storeWatch)
            table.register(watch, directory: "")
            var ignored: [WatchedChange] = []
            addSubdirectories(of: "", inotify, report: false, into: &ignored)
            self.inotify = consume inotify
        }

        func absolute(_ directory: String) -> String {
            directory.isEmpty ? root : root + "/" + directory
        }

        /// Watches the subdirectories of `directory` within the depth; with `report`, every file
        /// found is reported as written (it was made before the watch could see it).
        func addSubdirectories(of directory: String, _ inotify: borrowing FileDescriptor, report: Bool, into changes: inout [WatchedChange]) {
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
        /// between is missed (it may be reported twice, which costs a re-read, not a miss).
        func watch(_ directory: String, _ inotify: borrowing FileDescriptor, report: Bool, into changes: inout [WatchedChange]) {
            guard let watch = try? Inotify.addWatch(inotify, path: absolute(directory), mask: .storeWatch) else { return }
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
            guard let inotify = self.inotify.take() else { return }
            handler(WatchBatch(rescan: true))
            var broken = false
            while !stopping.load(ordering: .acquiring) {
                let reading = !broken && !paused.load(ordering: .acquiring)
                let readable: [PollResult]
                do {
                    readable = try Poll.wait(reading ? [wake.readEnd, inotify.rawValue] : [wake.readEnd], timeoutMilliseconds: reading ? Int(idleInterval) : -1)
                } catch {
                    broken = true
                    continue
                }
                if stopping.load(ordering: .acquiring) { break }
                if readable[0].readyToRead { wake.drain() }
                guard reading else { continue }
                if readable.count > 1 && readable[1].readyToRead {
                    let batch = readEvents(inotify, broken: &broken)
                    if !batch.changes.isEmpty || batch.rescan { handler(batch) }
                } else if !readable[0].readyToRead {
                    handler(WatchBatch(isIdle: true))
                }
            }
            inotify.close()
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
                let events = buffer.withUnsafeBytes { InotifyEvent.parse(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                for event in events {
                    for action in table.handle(event) {
                        switch action {
                        case let .report(change): changes.append(change)
                        case let .watch(directory): watch(directory, inotify, report: true, into: &changes)
                        case let .unwatch(watch): Inotify.removeWatch(inotify, watch)
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
