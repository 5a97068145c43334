import ChatStore
import ChatSystem
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Watches a conversation's `messages/` directory with inotify, as a screen that redraws on
/// change would, and records when each awaited client message ID first appears in a segment
/// file that was renamed (or written) into place.
final class SegmentWatcher: Sendable {
    private let directory: String
    private let fd: Int32
    private let watch: Int32
    private let state = Lock(State())

    private struct State {
        /// IDs awaited → when they were seen (nil until then).
        var wanted: [String: UInt64?] = [:]
        var stopped = false
        /// Segment files renamed into place (IN_MOVED_TO): one per durable segment write.
        var renames = 0
    }

    init(directory: String) throws {
        self.directory = directory
        fd = inotify_init1(Int32(IN_CLOEXEC))
        guard fd >= 0 else {
            throw Subprocess.Failure(description: "inotify_init1: \(String(cString: strerror(errno)))")
        }
        watch = inotify_add_watch(fd, directory, UInt32(IN_MOVED_TO) | UInt32(IN_CLOSE_WRITE))
        guard watch >= 0 else {
            close(fd)
            throw Subprocess.Failure(description: "inotify_add_watch \(directory): \(String(cString: strerror(errno)))")
        }
        Thread.detachNewThread { [self] in run() }
    }

    /// Starts looking for `id` (call before the message can arrive).
    func expect(_ id: String) {
        state.withLock { $0.wanted[id] = .some(nil) }
    }

    /// When `id` was seen (monotonic ns), waiting up to `timeout` seconds; nil if it never was.
    func seen(_ id: String, timeout: Double) async -> UInt64? {
        let deadline = Stats.now() + UInt64(timeout * 1e9)
        while Stats.now() < deadline {
            if let time = state.withLock({ $0.wanted[id] ?? nil }) {
                state.withLock { _ = $0.wanted.removeValue(forKey: id) }
                return time
            }
            // The time is taken by the watcher thread; this wait only paces the sender.
            try? await Task.sleep(for: .microseconds(250))
        }
        return nil
    }

    /// How many segment files were renamed into place since the watcher started.
    var renames: Int { state.withLock { $0.renames } }

    func stop() {
        state.withLock { $0.stopped = true }
    }

    private func run() {
        defer {
            inotify_rm_watch(fd, watch)
            close(fd)
        }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while !state.withLock({ $0.stopped }) {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 100) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { continue }
            var names = Set<String>()
            var renamed = 0
            var offset = 0
            while offset + 16 <= count {
                let mask = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self) }
                let length = buffer.withUnsafeBytes {
                    Int($0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                }
                let nameBytes = buffer[(offset + 16)..<min(count, offset + 16 + length)].prefix { $0 != 0 }
                let name = String(decoding: nameBytes, as: UTF8.self)
                if !name.hasPrefix(".") && name.hasSuffix(".json") {
                    names.insert(name)
                    if mask & UInt32(IN_MOVED_TO) != 0 { renamed += 1 }
                }
                offset += 16 + length
            }
            if renamed > 0 { state.withLock { $0.renames += renamed } }
            check(names)
        }
    }

    private func check(_ names: Set<String>) {
        let waiting = state.withLock { $0.wanted.filter { $0.value == nil }.map(\.key) }
        guard !waiting.isEmpty else { return }
        var found: [String] = []
        for name in names.sorted() {
            guard let data = FileManager.default.contents(atPath: directory + "/" + name) else { continue }
            for id in waiting where data.range(of: Data(id.utf8)) != nil { found.append(id) }
        }
        guard !found.isEmpty else { return }
        let now = Stats.now()
        state.withLock { state in
            for id in found where state.wanted[id] != nil { state.wanted[id] = .some(now) }
        }
    }
}
