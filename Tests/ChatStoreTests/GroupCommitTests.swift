import ChatDomain
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatStore

/// ``GroupCommit``: the store's writes staged, then published together.
@Suite struct GroupCommitTests {
    static func names(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
    }

    @Test("staged writes are not visible until the commit, which publishes them all and leaves no temp file")
    func commitPublishes() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("a"), withIntermediateDirectories: true)
        let group = GroupCommit()
        try group.staging { () throws(SystemError) in
            try DurableFile.makeDirectories(directory.file("b/c"))
            try DurableFile.write(Array("one\n".utf8), to: "one.json", in: directory.file("a"))
            try DurableFile.write(
                [("two.json", Array("two\n".utf8)), ("three.json", Array("three\n".utf8))], in: directory.file("b/c"))
        }
        #expect(group.count == 3)
        #expect(try Self.names(in: directory.file("a")).isEmpty)
        #expect(try Self.names(in: directory.file("b/c")).isEmpty)
        try group.commit()
        #expect(group.isEmpty)
        #expect(try Self.names(in: directory.file("a")) == ["one.json"])
        #expect(try Self.names(in: directory.file("b/c")) == ["three.json", "two.json"])
        #expect(try Sys.readFile(directory.file("b/c/two.json")) == Array("two\n".utf8))
        // Outside a group, writes are durable one by one again.
        try DurableFile.write(Array("now".utf8), to: "now.json", in: directory.file("a"))
        #expect(try Sys.readFile(directory.file("a/now.json")) == Array("now".utf8))
    }

    @Test("a group of 40 files in 20 new directories (made durable by syncfs) publishes them all", arguments: [40])
    func largeGroup(count: Int) throws {
        #expect(count >= GroupCommit.syncfsFrom)
        let directory = try TemporaryDirectory()
        let group = GroupCommit()
        try group.staging { () throws(SystemError) in
            for index in 0..<count {
                try DurableFile.makeDirectories(directory.file("d\(index / 2)"))
                try DurableFile.write(
                    Array("file \(index)\n".utf8), to: "f\(index).json", in: directory.file("d\(index / 2)"))
            }
        }
        #expect(try Self.names(in: directory.path).count == count / 2)
        #expect(try Self.names(in: directory.file("d0")).isEmpty)
        try group.commit()
        for index in 0..<count {
            #expect(try Sys.readFile(directory.file("d\(index / 2)/f\(index).json")) == Array("file \(index)\n".utf8))
        }
        #expect(try Self.names(in: directory.file("d7")) == ["f14.json", "f15.json"])
    }

    @Test("a group that only made directories commits (a store from git has no empty outbox/)")
    func directoriesOnly() throws {
        let directory = try TemporaryDirectory()
        let group = GroupCommit()
        try group.staging { () throws(SystemError) in try DurableFile.makeDirectories(directory.file("c1/outbox")) }
        #expect(!group.isEmpty)
        try group.commit()
        #expect(group.isEmpty)
        #expect(Sys.kind(of: directory.file("c1/outbox")) == .directory)
    }

    @Test("a path staged twice fails the commit before anything is written")
    func stagedTwice() throws {
        let directory = try TemporaryDirectory()
        let group = GroupCommit()
        group.stage(Array("first".utf8), as: "x.json", in: directory.path)
        group.stage(Array("other".utf8), as: "y.json", in: directory.path)
        group.stage(Array("second".utf8), as: "x.json", in: directory.path)
        #expect(throws: SystemError.self) { try group.commit() }
        #expect(try Self.names(in: directory.path).isEmpty)
    }

    @Test("a commit that cannot write one file renames none and removes its temp files")
    func failedWrite() throws {
        let directory = try TemporaryDirectory()
        let group = GroupCommit()
        group.stage(Array("kept out".utf8), as: "a.json", in: directory.path)
        group.stage(Array("nowhere".utf8), as: "b.json", in: directory.file("missing"))
        #expect(throws: SystemError.self) { try group.commit() }
        #expect(try Self.names(in: directory.path).isEmpty)
    }

    @Test("a conversation written by the store writer inside a group has the bytes it has when written outside one")
    func sameBytesAsDurableWrites() throws {
        let directory = try TemporaryDirectory()
        let bob = try UserID("bob")
        let id = try ConversationID("c1")
        let messages = (1...3).map {
            Message(
                sequence: $0, clientMessageID: .random(), senderID: bob, text: "hello \($0)",
                sentAt: "2026-01-01T00:00:0\($0)Z")
        }
        func write(_ root: String, grouped: Bool) throws -> Store {
            let store = try Store.create(at: root, manifest: Manifest(userID: bob))
            let writer = try StoreWriter(store: store)
            let group = GroupCommit()
            let steps = { () throws(StoreError) in
                try writer.saveInfo(ConversationInfo(title: "Alice", members: [bob]), for: id)
                try writer.save(messages, in: id)
                try writer.mergePositions(Positions([bob: MemberPosition(deliveredUpTo: 3, readUpTo: 2)]), in: id)
                try writer.recordCaughtUp(through: 3, in: id)
            }
            if grouped {
                try group.staging(steps)
                try group.commit()
            } else {
                try steps()
            }
            return store
        }
        let plain = try write(directory.file("plain"), grouped: false)
        let grouped = try write(directory.file("grouped"), grouped: true)
        let conversation = "/" + StoreLayout.conversations + "/c1"
        for name in ["conversation.json", "positions.json", ".caught-up", "messages/0000000001-0000000100.json"] {
            #expect(
                try Sys.readFile(grouped.root + conversation + "/" + name)
                    == (try Sys.readFile(plain.root + conversation + "/" + name)), "\(name)")
        }
        // One segment, the first: no `.newest` hint either way.
        for store in [plain, grouped] { #expect(Sys.kind(of: store.root + conversation + "/messages/.newest") == nil) }
        #expect(try Self.names(in: grouped.root + conversation) == (try Self.names(in: plain.root + conversation)))
        #expect(StoreChecker.check(root: grouped.root).errors.isEmpty)
    }
}
