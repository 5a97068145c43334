import ChatDomain
import ChatStore
import ChatTestSupport
import Foundation
import Testing

@testable import ChatSync

/// Three devices, every fault at once: the stores end up holding exactly the server's history,
/// and one user's two devices hold byte-identical files.
@Suite(.ownThreads) struct ConvergenceTests {
    @Test("500 messages from three devices under every fault mode converge, exactly once, byte-identical per user")
    func convergence() async throws {
        let directory = try TemporaryDirectory()
        let server = try TestServer(
            faults:
                "drop-reply=0.1,error5xx=0.1,rate-limit=0.05:0,latency=1ms,live-close=700ms,live-drop=0.1,live-dup=0.1,live-reorder=0.1,seed=42"
        )
        let phone = try clientStore("alice", in: directory, name: "alice-phone")
        let laptop = try clientStore("alice", in: directory, name: "alice-laptop")
        let bob = try clientStore("bob", in: directory)
        let devices = [phone, laptop, bob]
        var options = fastOptions
        options.backoff = Backoff(initial: .milliseconds(10), maximum: .milliseconds(100))
        let engines = try devices.map { try engine($0, server, options: options) }
        let logs = LogLines()
        let tasks = engines.enumerated().map { index, engine in
            Task { _ = await engine.runLive(log: { logs.append("device \(index): \($0)") }) }
        }
        defer { tasks.forEach { $0.cancel() } }
        let conversations = try ["ab", "group"].map { try ConversationID($0) }
        try await waitUntil("every device knows both conversations") {
            devices.allSatisfy { device in conversations.allSatisfy { device.conversation($0).exists } }
        }

        // 200 + 150 + 150 sends, spread over both conversations, queued while everything runs.
        var sent: [ClientMessageID] = []
        for (device, count) in zip(devices, [200, 150, 150]) {
            for index in 0..<count {
                let id = conversations[index % 2]
                sent.append(
                    try Outbox(device.conversation(id)).enqueue(
                        "\(device.root.split(separator: "/").last ?? "") \(index)"
                    ).clientMessageID)
                // Not a wait for anything: a pause now and then lets the workers send while more is queued.
                if index % 25 == 0 { try await Task.sleep(for: .milliseconds(5)) }
            }
        }

        try await waitUntil("the server holds all 500 and every outbox is empty", timeout: .seconds(90)) {
            let onServer = try await server.messages("ab").count + server.messages("group").count
            let queued = try devices.flatMap { device in
                try conversations.flatMap { try device.conversation($0).outbox() }
            }
            return onServer == 500 && queued.isEmpty
        }
        for id in conversations {
            let history = try await server.messages(id.rawValue)
            try await waitUntil("every device holds the server's history of \(id)", timeout: .seconds(60)) {
                try devices.allSatisfy { try storedMessages($0, id.rawValue) == history }
            }
        }
        tasks.forEach { $0.cancel() }
        for task in tasks { await task.value }
        if onServerMismatch(devices, server: server) { print(logs.lines.suffix(80).joined(separator: "\n")) }

        let onServer = try await server.messages("ab") + server.messages("group")
        #expect(onServer.count == 500)
        #expect(Set(onServer.map(\.clientMessageID)) == Set(sent), "every send on the server exactly once")
        for id in conversations {
            #expect(try storedMessages(bob, id.rawValue) == (try await server.messages(id.rawValue)))
        }
        // Settle positions: one last pass each, then the two alice devices once more.
        for engine in engines + engines.prefix(2) { _ = await engine.syncOnce() }
        for id in conversations {
            for relative in ["messages", "positions.json"] {
                let a = try contents(phone.conversation(id).directory + "/" + relative)
                let b = try contents(laptop.conversation(id).directory + "/" + relative)
                #expect(!a.isEmpty && a == b, "\(id)/\(relative) differs between alice's devices")
            }
        }
        for device in devices { #expect(StoreChecker.check(root: device.root).errors.isEmpty) }
    }

    func onServerMismatch(_ devices: [Store], server: TestServer) -> Bool {
        (try? devices.allSatisfy { try storedMessages($0, "ab").count + storedMessages($0, "group").count == 500 })
            != true
    }

    /// A file's bytes, or every file's bytes under a directory by name.
    func contents(_ path: String) throws -> [String: [UInt8]] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return [:] }
        if !isDirectory.boolValue { return ["": Array(try Data(contentsOf: URL(fileURLWithPath: path)))] }
        var result: [String: [UInt8]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: path) where !name.hasPrefix(".") {
            result[name] = Array(try Data(contentsOf: URL(fileURLWithPath: path + "/" + name)))
        }
        return result
    }
}

final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []
    func append(_ line: String) { lock.withLock { storage.append(line) } }
    var lines: [String] { lock.withLock { storage } }
}
