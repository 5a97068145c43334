import ChatSystem
import ChatTestSupport
import Testing

@Suite(.ownThreads) struct FileChangeStampTests {
    /// A 62-byte name that sorts as `number` (an outbox name's shape).
    static func name(_ number: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: 20 - digits.count) + digits + "-" + String(repeating: "A", count: 36)
            + ".json"
    }

    static func touch(_ path: String) throws {
        let fd = try FileDescriptor.open(path, [.writeOnly, .create, .exclusive])
        fd.close()
    }

    @Test(
        "the greatest name read through an open descriptor is the one a listing by path finds, over many getdents64 calls, and again after the directory changed"
    )
    func greatestNameThroughTheDescriptor() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("outbox")
        try Sys.mkdir(path)
        let fd = try FileDescriptor.openDirectory(path)
        #expect(try fd.greatestName(length: 62, path: path) == nil, "an empty directory")
        // 2,500 names of about 88 bytes a record: more than one 64 KiB read.
        for number in (1...2_500).shuffled() { try Self.touch(path + "/" + Self.name(number * 7)) }
        // Names of other lengths never win, however they sort.
        for other in ["zzzz", "." + Self.name(99_999) + ".123.456.tmp", Self.name(99_999) + "x", "read.json"] {
            try Self.touch(path + "/" + other)
        }
        #expect(try fd.greatestName(length: 62, path: path) == Self.name(2_500 * 7))
        #expect(try Sys.greatestName(in: path, length: 62) == Self.name(2_500 * 7))
        // Read again from the start on the same descriptor: a name made since is seen.
        try Self.touch(path + "/" + Self.name(2_500 * 7 + 1))
        #expect(try fd.greatestName(length: 62, path: path) == Self.name(2_500 * 7 + 1))
        try Sys.unlink(path + "/" + Self.name(2_500 * 7 + 1))
        #expect(try fd.greatestName(length: 62, path: path) == Self.name(2_500 * 7))
        #expect(try fd.greatestName(length: 4, path: path) == "zzzz")
        #expect(throws: SystemError.self) { try fd.greatestName(length: 0, path: path) }
    }

    @Test("a directory's stamp moves when a name is made, removed or renamed in it, and differs for another directory")
    func stampMoves() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("outbox")
        try Sys.mkdir(path)
        let fd = try FileDescriptor.openDirectory(path)
        let before = try fd.changeStamp(path: path)
        #expect(Sys.changeStamp(of: path) == before)
        #expect(try fd.changeStamp(path: path) == before, "nothing changed")
        #expect(Sys.changeStamp(of: directory.path) != before)
        #expect(Sys.changeStamp(of: directory.file("missing")) == nil)
        var last = before
        // Each step waits for the file system's clock to pass the last stamp (coarse before
        // Linux 6.13), probing with a scratch directory, so the change gets a later time.
        for step in ["make", "rename", "remove"] {
            try waitForFileSystemClock(past: last.changed, probing: directory.path)
            switch step {
            case "make": try Self.touch(path + "/a")
            case "rename": try Sys.rename(path + "/a", path + "/b")
            default: try Sys.unlink(path + "/b")
            }
            let now = try fd.changeStamp(path: path)
            #expect(now != last && now.identity == before.identity, "\(step): the stamp did not move")
            #expect(now.changed > last.changed && now.modified > last.modified, "\(step)")
            last = now
        }
    }
}
