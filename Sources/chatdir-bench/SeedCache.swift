import ChatDomain
import ChatStore
import Foundation

/// Seeded stores of N messages in conversation `c1`, made once with `chatdir seed` and reused
/// between runs. A store counts as complete only when its params file (written last, after the
/// seed finished and the store was renamed into place) matches the parameters asked for.
struct SeedCache {
    let root: String
    let chatdir: String
    /// Called with a line of progress for stderr.
    var log: (String) -> Void = { _ in }

    /// Five members as in the peers' generator (member `s % 5` sends sequence `s`).
    static let members = 5

    func path(messages: Int) -> String { root + "/store-\(messages)" }

    private func parameters(messages: Int) -> String {
        "chatdir seed --user alice --conversations 1 --messages \(messages) --members \(Self.members) --seed 42 (format \(StoreLayout.formatVersion))\n"
    }

    /// The store of `messages` messages, seeded now if the cache has no complete one. Segments
    /// past N that an interrupted append left are removed (``trim(_:to:)``), not reseeded.
    func store(messages: Int) throws -> Store {
        let path = path(messages: messages)
        let paramsFile = path + ".params"
        let wanted = parameters(messages: messages)
        if (try? String(contentsOfFile: paramsFile, encoding: .utf8)) == wanted, let store = try? Store.open(at: path),
            (try? store.conversation(SeedCache.c1).segmentRanges().contains { $0.contains(messages) }) == true
        {
            try Self.trim(store, to: messages)
            return store
        }
        Subprocess.removeTree(paramsFile)
        Subprocess.removeTree(path)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let temporary = path + ".seeding-\(getpid())"
        Subprocess.removeTree(temporary)
        log("seeding \(messages) messages into \(path) (once; reused by later runs)")
        let seeded = try Stats.seconds {
            try Subprocess.capture([
                chatdir, "seed", temporary, "--user", "alice", "--conversations", "1", "--messages", String(messages),
                "--members", String(Self.members), "--seed", "42",
            ])
        }
        log("seeded in \(String(format: "%.1f", seeded.seconds)) s")
        try FileManager.default.moveItem(atPath: temporary, toPath: path)
        try wanted.write(toFile: paramsFile, atomically: true, encoding: .utf8)
        // Write back everything the seed dirtied now, not under the next workload's fsyncs.
        sync()
        return try Store.open(at: path)
    }

    static let c1: ConversationID = {
        guard let id = try? ConversationID("c1") else { preconditionFailure("c1 is a valid ID") }
        return id
    }()

    /// Removes segments past `messages` that an interrupted append run left behind, so every
    /// run starts from the same N.
    static func trim(_ store: Store, to messages: Int) throws {
        let conversation = store.conversation(c1)
        let extra = try conversation.segmentRanges().filter { $0.first > messages }
        for range in extra {
            try FileManager.default.removeItem(atPath: conversation.messagesDirectory + "/" + range.fileName)
        }
        if let last = try conversation.segmentRanges().last, last.contains(messages) {
            let kept = try conversation.readSegment(last).filter { $0.sequence <= messages }
            if kept.count != (try conversation.readSegment(last)).count {
                // An append landed in the last seeded segment (N not a multiple of the segment size).
                try Data(SegmentFile.encode(kept)).write(
                    to: URL(fileURLWithPath: conversation.messagesDirectory + "/" + last.fileName))
            }
        }
        // Name the newest segment again, as the store's writer would (readers cope with a stale
        // hint, but every open would then pay for finding the newest file).
        if let newest = try conversation.segmentRanges().last {
            try Data((newest.fileName + "\n").utf8).write(
                to: URL(fileURLWithPath: conversation.messagesDirectory + "/" + StoreLayout.newestHint))
        }
    }
}
