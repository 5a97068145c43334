import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatStore

@Suite(.ownThreads) struct DurableFileTests {
    @Test("written files are 0600 and new directories 0700, with no temp file left behind")
    func modes() throws {
        let directory = try TemporaryDirectory()
        let nested = directory.path + "/a/b/c"
        try DurableFile.makeDirectories(nested)
        try DurableFile.write(Array("hello\n".utf8), to: "f.json", in: nested)
        #expect(Sys.mode(of: nested + "/f.json") == 0o600)
        #expect(Sys.mode(of: nested) == 0o700)
        #expect(Sys.mode(of: directory.path + "/a") == 0o700)
        #expect(try Sys.listDirectory(nested) == ["f.json"])
        #expect(try Sys.readFile(nested + "/f.json") == Array("hello\n".utf8))
    }

    @Test("a rewrite replaces the whole file")
    func replaces() throws {
        let directory = try TemporaryDirectory()
        try DurableFile.write(Array(repeating: 0x61, count: 10_000), to: "f", in: directory.path)
        try DurableFile.write(Array("short".utf8), to: "f", in: directory.path)
        #expect(try Sys.readFile(directory.path + "/f") == Array("short".utf8))
    }

    @Test("create never replaces an existing file")
    func createIsExclusive() throws {
        let directory = try TemporaryDirectory()
        try DurableFile.create(Array("one".utf8), as: "f", in: directory.path)
        #expect(throws: SystemError.self) { try DurableFile.create(Array("two".utf8), as: "f", in: directory.path) }
        #expect(try Sys.readFile(directory.path + "/f") == Array("one".utf8))
        #expect(try Sys.listDirectory(directory.path) == ["f"])
    }

    @Test("stale temp files of dead writers are removed; a live writer's are kept")
    func staleTemporaries() throws {
        let directory = try TemporaryDirectory()
        // pid 2^22+1 is above Linux's pid_max default ceiling: no such process.
        let dead = ".f.json.4194305.77.tmp"
        let live = ".g.json.\(getpid()).78.tmp"
        _ = FileManager.default.createFile(atPath: directory.path + "/" + dead, contents: Data("half".utf8))
        _ = FileManager.default.createFile(atPath: directory.path + "/" + live, contents: Data("half".utf8))
        _ = FileManager.default.createFile(atPath: directory.path + "/.keep", contents: Data())
        #expect(DurableFile.removeStaleTemporaries(in: directory.path) == [dead])
        #expect(try Sys.listDirectory(directory.path).sorted() == [".g.json.\(getpid()).78.tmp", ".keep"])
    }

    @Test("a missing file is reported as not found, with the path")
    func missing() throws {
        do {
            _ = try Sys.readFile("/nonexistent/chatdir/file")
            Issue.record("expected an error")
        } catch {
            #expect(error.isNotFound)
            #expect(error.description == "open /nonexistent/chatdir/file: No such file or directory")
        }
    }
}
