import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatStore

@Suite(.ownThreads) struct PolledDirectoriesTests {
    @Test("a file renamed over another is written, one removed is removed, temp files are never reported")
    func filesChanged() throws {
        let scratch = try ScratchDirectory()
        try DurableFile.write(Array("1\n".utf8), to: "a.json", in: scratch.path)
        try DurableFile.write(Array("1\n".utf8), to: "b.json", in: scratch.path)
        var polled = PolledDirectories(root: scratch.path, maxDepth: 1)
        var found: [WatchedChange] = []
        polled.add("", report: false, into: &found)
        #expect(found.isEmpty)
        #expect(polled.scan().changes.isEmpty, "nothing changed")
        // Same size, same bytes: only the inode tells the new file from the old.
        try DurableFile.write(Array("1\n".utf8), to: "a.json", in: scratch.path)
        try DurableFile.remove("b.json", in: scratch.path)
        try FileDescriptor.open(scratch.file(".c.json.tmp"), [.writeOnly, .create]).close()
        #expect(
            polled.scan().changes == [
                WatchedChange(directory: "", name: "b.json", kind: .removed),
                WatchedChange(directory: "", name: "a.json", kind: .written),
            ])
        #expect(polled.scan().changes.isEmpty)
    }

    @Test("a directory made within the depth is reported with its files and polled; one beyond the depth only appears")
    func directories() throws {
        let scratch = try ScratchDirectory()
        var polled = PolledDirectories(root: scratch.path, maxDepth: 1)
        var found: [WatchedChange] = []
        polled.add("", report: false, into: &found)
        try DurableFile.makeDirectories(scratch.path + "/outbox/deeper")
        try DurableFile.write(Array("x\n".utf8), to: "1.json", in: scratch.path + "/outbox")
        #expect(
            polled.scan().changes == [
                WatchedChange(directory: "", name: "outbox", kind: .directoryAppeared),
                WatchedChange(directory: "outbox", name: "1.json", kind: .written),
            ])
        #expect(polled.contains("outbox"))
        #expect(!polled.contains("outbox/deeper"))
        try DurableFile.write(Array("x\n".utf8), to: "2.json", in: scratch.path + "/outbox/deeper")
        #expect(polled.scan().changes.isEmpty, "beyond the depth")
        try Sys.rename(scratch.path + "/outbox", scratch.path + "/.outbox-gone")
        #expect(polled.scan().changes == [WatchedChange(directory: "", name: "outbox", kind: .directoryRemoved)])
        #expect(!polled.contains("outbox"))
    }

    @Test("the root going away is one rescan; made again, its files are reported")
    func rootGone() throws {
        let scratch = try ScratchDirectory()
        let root = scratch.path + "/c1"
        try DurableFile.makeDirectories(root)
        var polled = PolledDirectories(root: root, maxDepth: 1)
        var found: [WatchedChange] = []
        polled.add("", report: false, into: &found)
        try Sys.removeDirectory(root)
        #expect(polled.scan().rescan)
        #expect(!polled.scan().rescan, "said once")
        try DurableFile.makeDirectories(root)
        try DurableFile.write(Array("{}\n".utf8), to: "conversation.json", in: root)
        let back = polled.scan()
        #expect(!back.rescan)
        #expect(back.changes == [WatchedChange(directory: "", name: "conversation.json", kind: .written)])
    }
}
