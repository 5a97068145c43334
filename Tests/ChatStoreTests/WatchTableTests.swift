@testable import ChatStore
import Testing
import ChatTestSupport

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
        #expect(table.handle(InotifyEvent(watch: 1, mask: [.create, .isDirectory], name: "outbox")) == [
            .report(WatchedChange(directory: "", name: "outbox", kind: .directoryAppeared)), .watch("outbox"),
        ])
        #expect(table.handle(InotifyEvent(watch: 2, mask: [.create, .isDirectory], name: "deep")) == [
            .report(WatchedChange(directory: "messages", name: "deep", kind: .directoryAppeared)),
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

    @Test("event records parse from the kernel's byte layout, names NUL-padded")
    func parse() {
        var bytes: [UInt8] = []
        func append(_ wd: Int32, _ mask: UInt32, _ name: String, padTo: Int) {
            withUnsafeBytes(of: wd.littleEndian) { bytes.append(contentsOf: $0) }
            withUnsafeBytes(of: mask.littleEndian) { bytes.append(contentsOf: $0) }
            withUnsafeBytes(of: UInt32(0)) { bytes.append(contentsOf: $0) }
            withUnsafeBytes(of: UInt32(padTo).littleEndian) { bytes.append(contentsOf: $0) }
            var nameBytes = Array(name.utf8)
            nameBytes += [UInt8](repeating: 0, count: padTo - nameBytes.count)
            bytes += nameBytes
        }
        append(3, InotifyMask.movedTo.rawValue, "a.json", padTo: 16)
        append(-1, InotifyMask.overflow.rawValue, "", padTo: 0)
        let events = bytes.withUnsafeBytes { InotifyEvent.parse($0) }
        #expect(events == [InotifyEvent(watch: 3, mask: .movedTo, name: "a.json"), InotifyEvent(watch: -1, mask: .overflow)])
    }
}
