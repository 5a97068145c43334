import ChatTestSupport
import Foundation
import Testing

/// `chatdir send` with the text on standard input: read in constant memory, at most the largest
/// text a message may have, refused past it with what is allowed.
@Suite(.ownThreads) struct SendCommandEndToEndTests {
    static let largest = 65_536

    func store(in directory: TemporaryDirectory) throws -> String {
        try copyStore(packageRoot.appendingPathComponent("SampleData/alice"), into: directory)
    }

    func outboxNames(_ store: String) throws -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: store + "/conversations/dinner/outbox")) ?? []).filter {
            !$0.hasPrefix(".")
        }.sorted()
    }

    /// Runs `sh -c script` with `$0` the built chatdir and `$1` the store, under a 256 MiB
    /// address-space limit: a `send` that buffered all its input would die of it. (Not in a
    /// sanitized build, whose runtime reserves terabytes of address space for its shadow memory
    /// at start: there the exit and the words are what is checked.)
    func shell(_ script: String, store: String) throws -> SpawnedRunResult {
        try spawnAndWait(
            "/bin/sh",
            ["-c", (sanitizer == nil ? "ulimit -v 262144; " : "") + script, ChatdirProcess.executable.path, store],
            environment: ProcessInfo.processInfo.environment.merging(["NO_COLOR": "1"]) { $1 })
    }

    @Test("an endless standard input is refused in bounded memory: exit 64, how much is allowed, nothing queued")
    func endlessInput() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory)
        let before = try outboxNames(store)
        let result = try shell("yes dinner | \"$0\" send --store \"$1\" dinner", store: store)
        let stderr = String(decoding: result.stderr, as: UTF8.self)
        #expect(result.status == 64, "\(stderr)")
        #expect(
            stderr.contains(
                "standard input holds more than 65536 bytes; a message is at most 65536 bytes of UTF-8 (4096 characters)"
            ), "\(stderr)")
        #expect(try outboxNames(store) == before)
    }

    @Test("a 64 MiB file on standard input is refused the same way, without reading it all")
    func largeFile() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory)
        let file = directory.file("large.txt")
        try Data(repeating: UInt8(ascii: "a"), count: 64 << 20).write(to: URL(fileURLWithPath: file))
        let result = try shell("exec \"$0\" send --store \"$1\" dinner < \(file)", store: store)
        #expect(result.status == 64, "\(String(decoding: result.stderr, as: UTF8.self))")
        #expect(String(decoding: result.stderr, as: UTF8.self).contains("at most 65536 bytes"))
    }

    @Test("a text of exactly the largest size (and its newline) is queued whole; one byte more is refused")
    func boundary() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory)
        let before = try outboxNames(store)
        // 4,096 characters of 16 bytes each (é and seven combining accents): both limits at once.
        let text = String(repeating: "\u{E9}" + String(repeating: "\u{301}", count: 7), count: 4096)
        #expect(text.utf8.count == Self.largest && text.count == 4096)
        let queued = try ChatdirProcess.run(["send", "--store", store, "dinner"], input: text + "\n")
        #expect(queued.status == 0, "\(queued.stderr)")
        let added = try outboxNames(store).filter { !before.contains($0) }
        #expect(added.count == 1)
        if let name = added.first {
            let data = try Data(contentsOf: URL(fileURLWithPath: store + "/conversations/dinner/outbox/" + name))
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            #expect((object?["text"] as? String)?.utf8.count == Self.largest)
        }
        let over = try ChatdirProcess.run(["send", "--store", store, "dinner"], input: text + "y")
        #expect(over.status == 64)
        #expect(over.stderr.contains("standard input holds more than 65536 bytes"), "\(over.stderr)")
        let overAsArguments = try ChatdirProcess.run(["send", "--store", store, "dinner", text + "y"])
        #expect(overAsArguments.status == 64)
        #expect(
            overAsArguments.stderr.contains("the message text is 65537 bytes of UTF-8; at most 65536 are allowed"),
            "\(overAsArguments.stderr)")
        #expect(try outboxNames(store).count == before.count + 1)
    }
}
