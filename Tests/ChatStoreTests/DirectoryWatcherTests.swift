import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatStore

/// Every suite that starts watchers, run one test at a time so process-wide descriptor and
/// watcher counts mean something.
@Suite(.ownThreads, .serialized) struct LiveStore {}

extension LiveStore {
    @Suite(.ownThreads) struct DirectoryWatcherTests {
        /// Starts a watcher on `root` that records every batch.
        func watch(_ root: String, depth: Int = 1, paused: Bool = false) throws -> (
            DirectoryWatcher, Collector<WatchBatch>
        ) {
            let batches = Collector<WatchBatch>()
            let watcher = try DirectoryWatcher(root: root, depth: depth, idleInterval: -1, paused: paused) {
                batches.append($0)
            }
            return (watcher, batches)
        }

        func changes(_ batches: [WatchBatch]) -> [WatchedChange] { batches.flatMap(\.changes) }

        /// A `messages/` with one segment, made in a scratch directory of its own and renamed into
        /// `root`: files no event names. Returns the scratch directory (kept while it is used).
        func moveInMessages(to root: String) throws -> ScratchDirectory {
            let staging = try ScratchDirectory()
            try DurableFile.makeDirectories(staging.path + "/messages")
            try DurableFile.write(Array("[]\n".utf8), to: "0000000001-0000000100.json", in: staging.path + "/messages")
            try Sys.rename(staging.path + "/messages", root + "/messages")
            return staging
        }

        @Test("the first batch asks for a full read, before any change")
        func firstBatchIsRescan() async throws {
            let scratch = try ScratchDirectory()
            let (watcher, batches) = try watch(scratch.path)
            defer { watcher.stop() }
            #expect(await batches.wait { !$0.isEmpty })
            #expect(batches.all.first == WatchBatch(rescan: true))
        }

        @Test("a file created with link(2) is reported as written; the temp file never is")
        func create() async throws {
            let scratch = try ScratchDirectory()
            let (watcher, batches) = try watch(scratch.path)
            defer { watcher.stop() }
            try DurableFile.create(Array("{}\n".utf8), as: "a.json", in: scratch.path)
            #expect(
                await batches.wait {
                    self.changes($0).contains(WatchedChange(directory: "", name: "a.json", kind: .written))
                })
            #expect(!changes(batches.all).contains { $0.name.hasPrefix(".") })
        }

        @Test("a durable write (temp file renamed over the target) is reported once the rename commits")
        func renameInto() async throws {
            let scratch = try ScratchDirectory()
            let (watcher, batches) = try watch(scratch.path)
            defer { watcher.stop() }
            try DurableFile.write(Array("1\n".utf8), to: "positions.json", in: scratch.path)
            #expect(
                await batches.wait {
                    self.changes($0).contains(WatchedChange(directory: "", name: "positions.json", kind: .written))
                })
            #expect(changes(batches.all).allSatisfy { $0.name == "positions.json" })
        }

        @Test("an unlinked file is reported as removed")
        func delete() async throws {
            let scratch = try ScratchDirectory()
            try DurableFile.write(Array("1\n".utf8), to: "old.json", in: scratch.path)
            let (watcher, batches) = try watch(scratch.path)
            defer { watcher.stop() }
            try DurableFile.remove("old.json", in: scratch.path)
            #expect(
                await batches.wait {
                    self.changes($0).contains(WatchedChange(directory: "", name: "old.json", kind: .removed))
                })
        }

        @Test("a directory created after the watch is watched, and files already in it are reported")
        func directoryCreatedLater() async throws {
            let scratch = try ScratchDirectory()
            let (watcher, batches) = try watch(scratch.path, depth: 1)
            defer { watcher.stop() }
            // Made elsewhere with a file inside, then renamed in: no event can name that file.
            _ = try moveInMessages(to: scratch.path)
            #expect(
                await batches.wait {
                    self.changes($0).contains(
                        WatchedChange(directory: "messages", name: "0000000001-0000000100.json", kind: .written))
                })
            #expect(
                changes(batches.all).contains(WatchedChange(directory: "", name: "messages", kind: .directoryAppeared)))
            // And the new directory's own later changes arrive through its new watch.
            try DurableFile.write(Array("[]\n".utf8), to: "0000000101-0000000200.json", in: scratch.path + "/messages")
            #expect(
                await batches.wait {
                    self.changes($0).contains(
                        WatchedChange(directory: "messages", name: "0000000101-0000000200.json", kind: .written))
                })
        }

        @Test("directories deeper than the depth are not watched")
        func depthLimit() async throws {
            let scratch = try ScratchDirectory()
            let (watcher, batches) = try watch(scratch.path, depth: 1)
            defer { watcher.stop() }
            try DurableFile.makeDirectories(scratch.path + "/outbox/deeper")
            try DurableFile.write(Array("x\n".utf8), to: "marker.json", in: scratch.path + "/outbox")
            #expect(
                await batches.wait {
                    self.changes($0).contains(WatchedChange(directory: "outbox", name: "marker.json", kind: .written))
                })
            try DurableFile.write(Array("x\n".utf8), to: "ignored.json", in: scratch.path + "/outbox/deeper")
            try DurableFile.write(Array("x\n".utf8), to: "marker2.json", in: scratch.path + "/outbox")
            #expect(await batches.wait { self.changes($0).contains { $0.name == "marker2.json" } })
            #expect(!changes(batches.all).contains { $0.name == "ignored.json" })
        }

        @Test("10,000 files renamed into place in a burst are all seen, in far fewer batches")
        func burst() async throws {
            let scratch = try ScratchDirectory()
            let count = 10_000
            for index in 0..<count {
                try FileDescriptor.open(scratch.file(".t\(index).tmp"), [.writeOnly, .create]).close()
            }
            // A handler that takes a millisecond, like a refresh that reads files: events that arrive
            // meanwhile wait in the kernel's queue and come together in the next batch.
            let batches = Collector<WatchBatch>()
            let watcher = try DirectoryWatcher(root: scratch.path, depth: 1) { batch in
                batches.append(batch)
                usleep(1000)
            }
            defer { watcher.stop() }
            #expect(await batches.wait { !$0.isEmpty })
            for index in 0..<count {
                try Sys.rename(scratch.file(".t\(index).tmp"), scratch.file("m\(index).json"))
            }
            let expected = Set((0..<count).map { "m\($0).json" })
            let seenAll = await batches.wait(timeout: 60) { batches in
                Set(batches.flatMap(\.changes).filter { $0.kind == .written }.map(\.name)).isSuperset(of: expected)
            }
            #expect(seenAll)
            #expect(batches.all.count < count / 10, "a burst is coalesced into batches, not one call per file")
            #expect(!batches.all.dropFirst().contains { $0.rescan }, "no events were lost")
        }

        @Test("an overflowing kernel queue (IN_Q_OVERFLOW) becomes a rescan batch")
        func overflow() async throws {
            let scratch = try ScratchDirectory()
            let limit =
                Int(
                    (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))?
                        .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 16384
            try #require(limit <= 200_000, "max_queued_events is \(limit); too large to overflow in a test")
            let (watcher, batches) = try watch(scratch.path, paused: true)
            defer { watcher.stop() }
            #expect(await batches.wait { !$0.isEmpty })
            for index in 0...(limit + 16) {
                // IN_CREATE + IN_CLOSE_WRITE: two events each
                try FileDescriptor.open(scratch.file("f\(index)"), [.writeOnly, .create]).close()
            }
            watcher.resume()
            #expect(await batches.wait { $0.dropFirst().contains { $0.rescan } })
            // After the rescan the watcher keeps working.
            try DurableFile.write(Array("x\n".utf8), to: "after.json", in: scratch.path)
            #expect(await batches.wait { self.changes($0).contains { $0.name == "after.json" } })
        }

        @Test("stopping closes every descriptor: no leak over 1,000 start/stop cycles")
        func noDescriptorLeak() throws {
            let scratch = try ScratchDirectory()
            try DurableFile.makeDirectories(scratch.path + "/messages")
            let inotifyBefore = openInotifyDescriptors()
            for _ in 0..<1000 {
                let watcher = try DirectoryWatcher(root: scratch.path, depth: 1) { _ in }
                watcher.stop()
            }
            for _ in 0..<100 {
                _ = try DirectoryWatcher(root: scratch.path, depth: 1) { _ in } // released without stop()
            }
            // This test's own watchers are counted by their root, so nothing running beside it
            // counts. The process-wide inotify count is shared with suites running in parallel (a
            // few dozen watchers at most); a leak here would add 1,100 (or hit EMFILE first, at
            // max_user_instances).
            #expect(DirectoryWatcher.openWatchers(root: scratch.path) == 0)
            #expect(openInotifyDescriptors() < inotifyBefore + 500)
        }

        @Test("a watcher stopped from its own handler ends cleanly")
        func stopFromHandler() async throws {
            let scratch = try ScratchDirectory()
            let done = Collector<Bool>()
            let box = WatcherBox()
            box.watcher = try DirectoryWatcher(root: scratch.path, depth: 0) { _ in
                box.watcher?.stop()
                done.append(true)
            }
            #expect(await done.wait { !$0.isEmpty })
            box.watcher = nil
        }

        // MARK: The kernel's inotify limits

        /// A watcher of `root` whose inotify calls are refused as the kernel's per-user limits
        /// refuse them: `watches` more watches, `instances` more inotify descriptors. Polls every
        /// 100 ms, so the tests wait less than a second per look.
        func watchLimited(_ root: String, depth: Int = 1, watches: Int?, instances: Int? = nil) throws -> (
            DirectoryWatcher, Collector<WatchBatch>
        ) {
            FaultInjection.limitInotify(under: root, watches: watches, instances: instances)
            defer { FaultInjection.clearInotifyLimit(under: root) }
            let batches = Collector<WatchBatch>()
            let watcher = try DirectoryWatcher(root: root, depth: depth, pollInterval: 100) { batches.append($0) }
            return (watcher, batches)
        }

        @Test(
            "a subdirectory the kernel will not watch (watch limit reached) is polled: its files' changes arrive, and every batch says why"
        )
        func watchLimitPollsSubdirectory() async throws {
            let scratch = try ScratchDirectory()
            try DurableFile.makeDirectories(scratch.path + "/messages")
            try DurableFile.write(Array("[]\n".utf8), to: "old.json", in: scratch.path + "/messages")
            // One watch: the root's. `messages/` is refused with ENOSPC, as at fs.inotify.max_user_watches.
            let (watcher, batches) = try watchLimited(scratch.path, watches: 1)
            defer { watcher.stop() }
            #expect(await batches.wait { !$0.isEmpty })
            let first = try #require(batches.all.first)
            #expect(first.rescan)
            let polling = try #require(first.polling, "the first batch says the watcher polls")
            #expect(polling.limit == .watches)
            #expect(polling.path == scratch.path + "/messages")
            #expect(polling.intervalMilliseconds == 100)

            try DurableFile.write(Array("[]\n".utf8), to: "new.json", in: scratch.path + "/messages")
            #expect(
                await batches.wait {
                    self.changes($0).contains(WatchedChange(directory: "messages", name: "new.json", kind: .written))
                })
            try DurableFile.write(Array("[1]\n".utf8), to: "old.json", in: scratch.path + "/messages")
            #expect(
                await batches.wait {
                    self.changes($0).contains(WatchedChange(directory: "messages", name: "old.json", kind: .written))
                })
            try DurableFile.remove("new.json", in: scratch.path + "/messages")
            #expect(
                await batches.wait {
                    self.changes($0).contains(WatchedChange(directory: "messages", name: "new.json", kind: .removed))
                })
            // The watched root still reports through inotify.
            try DurableFile.write(Array("{}\n".utf8), to: "positions.json", in: scratch.path)
            #expect(
                await batches.wait {
                    self.changes($0).contains(WatchedChange(directory: "", name: "positions.json", kind: .written))
                })
            #expect(batches.all.allSatisfy { $0.polling == polling }, "every batch carries the reason")
            #expect(!changes(batches.all).contains { $0.name.hasPrefix(".") }, "temp files are not reported")
        }

        @Test(
            "the root itself refused (watch limit reached): the whole tree is polled, a directory made later included")
        func watchLimitPollsRoot() async throws {
            let scratch = try ScratchDirectory()
            try DurableFile.makeDirectories(scratch.path + "/outbox")
            let (watcher, batches) = try watchLimited(scratch.path, watches: 0)
            defer { watcher.stop() }
            #expect(await batches.wait { !$0.isEmpty })
            #expect(batches.all.first?.polling?.path == scratch.path)
            try DurableFile.write(Array("x\n".utf8), to: "a.json", in: scratch.path + "/outbox")
            try DurableFile.write(Array("{}\n".utf8), to: "conversation.json", in: scratch.path)
            #expect(
                await batches.wait {
                    self.changes($0).contains(WatchedChange(directory: "outbox", name: "a.json", kind: .written))
                        && self.changes($0).contains(
                            WatchedChange(directory: "", name: "conversation.json", kind: .written))
                })
            // Made elsewhere with a file inside, then renamed in.
            let staging = try moveInMessages(to: scratch.path)
            #expect(
                await batches.wait {
                    self.changes($0).contains(
                        WatchedChange(directory: "messages", name: "0000000001-0000000100.json", kind: .written))
                })
            #expect(
                changes(batches.all).contains(WatchedChange(directory: "", name: "messages", kind: .directoryAppeared)))
            try DurableFile.write(Array("[]\n".utf8), to: "0000000101-0000000200.json", in: scratch.path + "/messages")
            #expect(
                await batches.wait {
                    self.changes($0).contains(
                        WatchedChange(directory: "messages", name: "0000000101-0000000200.json", kind: .written))
                })
            try Sys.rename(scratch.path + "/messages", staging.path + "/gone")
            #expect(
                await batches.wait {
                    self.changes($0).contains(WatchedChange(directory: "", name: "messages", kind: .directoryRemoved))
                })
        }

        @Test(
            "a directory that appears later and is refused a watch is polled from then on, and the batches say so from then on"
        )
        func watchLimitReachedLater() async throws {
            let scratch = try ScratchDirectory()
            let (watcher, batches) = try watchLimited(scratch.path, watches: 1)
            defer { watcher.stop() }
            #expect(await batches.wait { !$0.isEmpty })
            #expect(batches.all.first?.polling == nil, "the root's watch was granted")
            FaultInjection.limitInotify(under: scratch.path, watches: 0)
            defer { FaultInjection.clearInotifyLimit(under: scratch.path) }
            try DurableFile.makeDirectories(scratch.path + "/outbox")
            #expect(await batches.wait { $0.contains { $0.polling?.path == scratch.path + "/outbox" } })
            try DurableFile.write(Array("x\n".utf8), to: "b.json", in: scratch.path + "/outbox")
            #expect(
                await batches.wait {
                    self.changes($0).contains(WatchedChange(directory: "outbox", name: "b.json", kind: .written))
                })
        }

        @Test(
            "inotify itself refused (instance limit reached): the tree is polled, and the reason names fs.inotify.max_user_instances"
        )
        func instanceLimitPolls() async throws {
            let scratch = try ScratchDirectory()
            let (watcher, batches) = try watchLimited(scratch.path, watches: nil, instances: 0)
            defer { watcher.stop() }
            #expect(await batches.wait { !$0.isEmpty })
            let polling = try #require(batches.all.first?.polling)
            #expect(polling.limit == .instances)
            #expect(polling.description.contains("fs.inotify.max_user_instances"))
            #expect(polling.description.hasPrefix("cannot start inotify for \(scratch.path): "))
            try DurableFile.write(Array("x\n".utf8), to: "c.json", in: scratch.path)
            #expect(
                await batches.wait {
                    self.changes($0).contains(WatchedChange(directory: "", name: "c.json", kind: .written))
                })
        }

        @Test("idle batches still come while the whole tree is polled")
        func idleWhilePolling() async throws {
            let scratch = try ScratchDirectory()
            FaultInjection.limitInotify(under: scratch.path, watches: 0)
            defer { FaultInjection.clearInotifyLimit(under: scratch.path) }
            let batches = Collector<WatchBatch>()
            let watcher = try DirectoryWatcher(root: scratch.path, depth: 1, idleInterval: 50, pollInterval: 100) {
                batches.append($0)
            }
            defer { watcher.stop() }
            #expect(await batches.wait { $0.filter(\.isIdle).count >= 2 })
            #expect(batches.all.filter(\.isIdle).allSatisfy { $0.polling?.limit == .watches })
        }

        @Test(
            "a root that is missing still throws while the limits are reached, and a polling watcher leaves nothing open"
        )
        func limitsKeepOtherErrorsAndClose() throws {
            let scratch = try ScratchDirectory()
            FaultInjection.limitInotify(under: scratch.path, watches: 0)
            defer { FaultInjection.clearInotifyLimit(under: scratch.path) }
            #expect(throws: SystemError.self) {
                try DirectoryWatcher(root: scratch.path + "/missing", depth: 1) { _ in }
            }
            let inotifyBefore = openInotifyDescriptors()
            for _ in 0..<100 {
                let watcher = try DirectoryWatcher(root: scratch.path, depth: 1) { _ in }
                watcher.stop()
            }
            #expect(DirectoryWatcher.openWatchers(root: scratch.path) == 0)
            #expect(openInotifyDescriptors() < inotifyBefore + 50)
        }

        @Test("the warning says what was refused, the setting and its value, what happens instead and what to do")
        func warningText() {
            let inContainer = WatchFallback(
                limit: .watches, path: "/s/conversations/c1/messages", intervalMilliseconds: 1000, value: 8192,
                namespaceValue: 3)
            #expect(
                inContainer.description
                    == "cannot watch /s/conversations/c1/messages: the kernel's inotify watch limit is reached "
                    + "(fs.inotify.max_user_watches = 8192; user.max_inotify_watches = 3 in this user namespace); checking for changes every second instead. "
                    + "Raise it with `sysctl fs.inotify.max_user_watches=524288` (as root; in /etc/sysctl.d/ to keep it), or stop programs that watch many files"
            )
            #expect(
                inContainer.summary
                    == "checking for changes every second: inotify watch limit reached (fs.inotify.max_user_watches)")
            let machine = WatchFallback(
                limit: .watches, path: "/s", intervalMilliseconds: 1000, value: 1_048_576, namespaceValue: 2_147_483_647
            )
            #expect(machine.description.contains("(fs.inotify.max_user_watches = 1048576); checking"))
            #expect(machine.description.contains("`sysctl fs.inotify.max_user_watches=2097152`"))
            let memory = WatchFallback(
                limit: .memory, path: "/s", intervalMilliseconds: 250, value: nil, namespaceValue: nil)
            #expect(
                memory.description
                    == "cannot watch /s: the kernel has no memory for another inotify watch; checking for changes every 250 ms instead"
            )
        }
    }

}

/// The watcher, for its own handler to reach: the test thread stores it once `init` returns while
/// the watcher thread may already be reading it, so it sits behind a lock (unlocked, that was a
/// data race ThreadSanitizer reported).
final class WatcherBox: Sendable {
    private let stored = Lock<DirectoryWatcher?>(nil)

    var watcher: DirectoryWatcher? {
        get { stored.withLock { $0 } }
        set {
            // Released after the lock is let go: the last release stops the watcher, which waits
            // for a handler that may be waiting for this lock.
            let replaced = stored.withLock { watcher -> DirectoryWatcher? in
                defer { watcher = newValue }
                return watcher
            }
            _ = replaced
        }
    }
}

@Suite(.ownThreads) struct WatchTableTests {
    @Test("IN_Q_OVERFLOW (wd -1) means re-read everything")
    func overflowEvent() {
        var table = WatchTable(maxDepth: 1)
        #expect(table.handle(InotifyEvent(watch: -1, mask: .overflow)) == [.rescan])
    }

    @Test(arguments: [".0000000001-0000000100.json.123.456.tmp", ".swp"])
    func tempFilesAreIgnored(name: String) {
        var table = WatchTable(maxDepth: 1)
        table.register(1, directory: "")
        #expect(table.handle(InotifyEvent(watch: 1, mask: .movedTo, name: name)).isEmpty)
    }

    @Test("a new subdirectory is watched within the depth, reported beyond it")
    func newDirectory() {
        var table = WatchTable(maxDepth: 1)
        table.register(1, directory: "")
        table.register(2, directory: "messages")
        #expect(
            table.handle(InotifyEvent(watch: 1, mask: [.create, .isDirectory], name: "outbox")) == [
                .report(WatchedChange(directory: "", name: "outbox", kind: .directoryAppeared)), .watch("outbox"),
            ])
        #expect(
            table.handle(InotifyEvent(watch: 2, mask: [.create, .isDirectory], name: "deep")) == [
                .report(WatchedChange(directory: "messages", name: "deep", kind: .directoryAppeared))
            ])
    }

    @Test("IN_IGNORED forgets the watch; later events on it are dropped")
    func ignoredForgets() {
        var table = WatchTable(maxDepth: 1)
        table.register(2, directory: "messages")
        #expect(table.handle(InotifyEvent(watch: 2, mask: .ignored)).isEmpty)
        #expect(table.handle(InotifyEvent(watch: 2, mask: .movedTo, name: "a.json")).isEmpty)
        #expect(table.watchByDirectory["messages"] == nil)
    }

    @Test("the root going away means re-read everything")
    func rootGone() {
        var table = WatchTable(maxDepth: 1)
        table.register(1, directory: "")
        #expect(table.handle(InotifyEvent(watch: 1, mask: .deleteSelf)) == [.rescan])
    }
}
