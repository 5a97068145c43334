import ChatSystem
import ChatTestSupport
import Foundation
import Glibc
import Testing

@Suite struct FileDescriptorTests {
    /// A pipe whose write end is owned by a ``FileDescriptor``; the read end sees EOF only once
    /// every copy of the write end is closed, so EOF proves the owner closed it.
    private func pipeEnds() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        try #require(ends.withUnsafeMutableBufferPointer { pipe($0.baseAddress) } == 0)
        return (ends[0], ends[1])
    }

    private func readSeesEndOfFile(_ fd: Int32) -> Bool {
        var pollEntry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pollEntry, 1, 10_000) == 1 else { return false }
        var byte: UInt8 = 0
        return read(fd, &byte, 1) == 0
    }

    @Test(
        "readToEnd gives a file's bytes whatever its size against the buffer: empty, shorter, exactly as long, longer, many times longer",
        arguments: [0, 1, 63, 64, 65, 100, 4095, 4096, 4097, 100_000])
    func readToEnd(size: Int) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("f")
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        for expected in [64, 100, 4096] {
            #expect(
                try FileDescriptor.open(path, .readOnly).readToEnd(expected: expected, path: path) == bytes,
                "expected \(expected)")
        }
    }

    @Test("a descriptor closes when its owner goes out of scope")
    func closesAtEndOfScope() throws {
        let ends = try pipeEnds()
        defer { close(ends.read) }
        do {
            let owner = FileDescriptor(owning: ends.write)
            _ = owner.rawValue
        }
        #expect(readSeesEndOfFile(ends.read))
    }

    @Test("close() closes it at once, and the owner is gone with it")
    func closesOnClose() throws {
        let ends = try pipeEnds()
        defer { close(ends.read) }
        let owner = FileDescriptor(owning: ends.write)
        owner.close()
        #expect(readSeesEndOfFile(ends.read))
    }

    @Test("a file written through a descriptor reads back whole; opening a missing file says ENOENT")
    func writeAndRead() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/f"
        let fd = try FileDescriptor.open(path, [.writeOnly, .create, .exclusive])
        try fd.writeAll(Array("hello".utf8), path: path)
        try fd.fsync(path: path)
        fd.close()
        #expect(try Sys.readFile(path) == Array("hello".utf8))
        #expect(Sys.mode(of: path) == 0o600)
        #expect(throws: SystemError(operation: "open", path: path + ".missing", errno: .noSuchFile)) {
            _ = try Sys.readFile(path + ".missing")
        }
    }
}
