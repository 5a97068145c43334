import ChatDomain
import ChatSystem

/// What the sync worker says of itself, for `chatdir status`: who it is, whether it reaches
/// the server, when each conversation last caught up, how long deliveries took. Never message
/// text, never the token. Times are milliseconds since 1970 by this device's clock.
public struct SyncStatus: Sendable, Hashable {
    /// How the worker runs: `sync --live`, or one pass of `sync`.
    public enum Mode: String, Sendable {
        case live
        case pass
    }

    /// Where the worker stands with the server.
    public enum Connection: String, Sendable {
        /// Started, not connected yet.
        case connecting
        /// The live socket is up.
        case connected
        /// The live socket is down, or the server could not be reached; the worker keeps trying.
        case reconnecting
        /// A one-pass sync at work.
        case syncing
        /// The worker ended (SIGINT, SIGTERM, or the pass was done).
        case stopped
    }

    public var pid: Int32
    public var mode: Mode
    public var startedAt: Int64
    public var updatedAt: Int64
    public var connection: Connection
    /// Why the worker is reconnecting (the transport's words), when it is.
    public var problem: String?
    /// When the live socket was lost, within the last hour.
    public var reconnects: [Int64] = []
    /// The last successful catch-up of each conversation.
    public var caughtUp: [ConversationID: Int64] = [:]
    /// Queued → stored as sent, in milliseconds, for the last deliveries (oldest first).
    public var sendToSent: [Int] = []
    /// When the worker tries the server again, while it is reconnecting.
    public var nextTryAt: Int64?
    /// Conversations the worker cannot sync, each with why (a damaged file with its path and
    /// line, an answer that breaks the contract): nothing new arrives in them and their outbox
    /// waits until the conversation catches up again, which removes it from here.
    public var stoppedConversations: [ConversationID: String] = [:]

    /// Deliveries kept in ``sendToSent``.
    public static let deliveriesKept = 100
    /// Reconnects older than this are forgotten (milliseconds: one hour).
    public static let reconnectWindow: Int64 = 3_600_000

    public init(pid: Int32, mode: Mode, startedAt: Int64, connection: Connection) {
        self.pid = pid
        self.mode = mode
        self.startedAt = startedAt
        self.updatedAt = startedAt
        self.connection = connection
    }
}

/// Reads and writes `.sync-status` in the store root: one line of canonical JSON, keys sorted,
/// replaced by rename and never fsynced (figures, not data: a crash may lose the last second).
///
///     {"caughtUp":{"dinner":1764630000000},"connection":"connected","mode":"live","pid":4242,"reconnects":[],"sendToSentMs":[180,95],"startedAt":1764629990000,"updatedAt":1764630001000}
///
/// While reconnecting it also holds `"nextTryAt"` (milliseconds since 1970), and while a
/// conversation cannot be synced `"stoppedConversations":{"dinner":"<why>"}`.
public enum SyncStatusFile {
    /// Larger than any file the worker writes; a bigger one is refused unread.
    static let maxSize = 64 * 1024

    public static func encode(_ status: SyncStatus) -> [UInt8] {
        var members: [(key: String, value: JSONValue)] = []
        let caught = status.caughtUp.sorted { $0.key.rawValue < $1.key.rawValue }.map {
            (key: $0.key.rawValue, value: JSONValue.integer(Int($0.value)))
        }
        members.append(("caughtUp", .object(caught)))
        members.append(("connection", .string(status.connection.rawValue)))
        members.append(("mode", .string(status.mode.rawValue)))
        if let next = status.nextTryAt { members.append(("nextTryAt", .integer(Int(next)))) }
        members.append(("pid", .integer(Int(status.pid))))
        if let problem = status.problem { members.append(("problem", .string(problem))) }
        members.append(("reconnects", .array(status.reconnects.map { .integer(Int($0)) })))
        members.append(("sendToSentMs", .array(status.sendToSent.map { .integer($0) })))
        members.append(("startedAt", .integer(Int(status.startedAt))))
        if !status.stoppedConversations.isEmpty {
            let stopped = status.stoppedConversations.sorted { $0.key.rawValue < $1.key.rawValue }.map {
                (key: $0.key.rawValue, value: JSONValue.string($0.value))
            }
            members.append(("stoppedConversations", .object(stopped)))
        }
        members.append(("updatedAt", .integer(Int(status.updatedAt))))
        return JSONWriter.encode(.object(members)) + [0x0A]
    }

    /// The status in `bytes`, or the reason it is not one (another process wrote the file: it
    /// is checked like any untrusted input, and a bad one is reported, never trusted).
    public static func decode(_ bytes: [UInt8]) -> Result<SyncStatus, SyncStatusError> {
        guard bytes.count <= maxSize else { return .failure(SyncStatusError(reason: "larger than \(maxSize) bytes")) }
        let value: JSONValue
        do {
            value = try JSONParser.parse(
                bytes, limits: JSONParser.Limits(maxDepth: 4, maxMembers: 10_000, maxElements: 10_000))
        } catch {
            return .failure(SyncStatusError(reason: error.description))
        }
        func fail(_ key: String, _ expected: String) -> Result<SyncStatus, SyncStatusError> {
            .failure(
                SyncStatusError(
                    reason: "\"\(key)\" is \(value[key]?.typeDescription ?? "missing"), expected \(expected)"))
        }
        func integer(_ key: String) -> Int? {
            if case .integer(let number)? = value[key] { return number }
            return nil
        }
        func string(_ key: String) -> String? {
            if case .string(let text)? = value[key] { return text }
            return nil
        }
        func integers(_ key: String) -> [Int]? {
            guard case .array(let items)? = value[key] else { return nil }
            var numbers: [Int] = []
            for item in items {
                guard case .integer(let number) = item, number >= 0 else { return nil }
                numbers.append(number)
            }
            return numbers
        }
        guard case .object = value else { return .failure(SyncStatusError(reason: "not a JSON object")) }
        guard let pid = integer("pid"), pid > 0, pid <= Int(Int32.max) else { return fail("pid", "a process ID") }
        guard let mode = string("mode").flatMap(SyncStatus.Mode.init(rawValue:)) else {
            return fail("mode", "\"live\" or \"pass\"")
        }
        guard let connection = string("connection").flatMap(SyncStatus.Connection.init(rawValue:)) else {
            return fail("connection", "connecting, connected, reconnecting, syncing or stopped")
        }
        guard let startedAt = integer("startedAt"), startedAt >= 0 else {
            return fail("startedAt", "milliseconds since 1970")
        }
        guard let updatedAt = integer("updatedAt"), updatedAt >= 0 else {
            return fail("updatedAt", "milliseconds since 1970")
        }
        guard let reconnects = integers("reconnects") else { return fail("reconnects", "an array of times") }
        guard let sendToSent = integers("sendToSentMs") else { return fail("sendToSentMs", "an array of milliseconds") }
        guard case .object(let caught)? = value["caughtUp"] else { return fail("caughtUp", "an object") }
        var status = SyncStatus(pid: Int32(pid), mode: mode, startedAt: Int64(startedAt), connection: connection)
        status.updatedAt = Int64(updatedAt)
        if value["problem"] != nil {
            guard let problem = string("problem") else { return fail("problem", "a string") }
            status.problem = problem
        }
        if value["nextTryAt"] != nil {
            guard let next = integer("nextTryAt"), next >= 0 else {
                return fail("nextTryAt", "milliseconds since 1970")
            }
            status.nextTryAt = Int64(next)
        }
        if let stopped = value["stoppedConversations"] {
            guard case .object(let entries) = stopped else { return fail("stoppedConversations", "an object") }
            for entry in entries {
                guard let id = try? ConversationID(entry.key), case .string(let reason) = entry.value else {
                    return .failure(
                        SyncStatusError(
                            reason:
                                "\"stoppedConversations\" holds \(quoted(entry.key)), expected conversation IDs with reasons"
                        ))
                }
                status.stoppedConversations[id] = reason
            }
        }
        status.reconnects = reconnects.map(Int64.init)
        status.sendToSent = sendToSent
        for member in caught {
            guard let id = try? ConversationID(member.key), case .integer(let time) = member.value, time >= 0 else {
                return .failure(
                    SyncStatusError(
                        reason: "\"caughtUp\" holds \(quoted(member.key)), expected conversation IDs with times"))
            }
            status.caughtUp[id] = Int64(time)
        }
        return .success(status)
    }

    /// Replaces the store's status file (no fsync, see the type's note).
    public static func write(_ status: SyncStatus, storeRoot: String) throws(SystemError) {
        try EphemeralFile.replace(encode(status), as: StoreLayout.syncStatus, in: storeRoot)
    }

    /// The store's status file: nil when there is none, else what it holds or why it cannot be read.
    public static func read(storeRoot: String) -> Result<SyncStatus, SyncStatusError>? {
        let bytes: [UInt8]
        do throws(StoreError) {
            guard
                let read = try StoreFiles.read(
                    storeRoot + "/" + StoreLayout.syncStatus, relative: StoreLayout.syncStatus, limit: 1 << 20,
                    what: "a status file")
            else { return nil }
            bytes = read
        } catch {
            return .failure(SyncStatusError(reason: error.description))
        }
        return decode(bytes)
    }
}

/// Why `.sync-status` could not be read: `chatdir status` says so and goes on without it.
public struct SyncStatusError: Error, Equatable, Sendable, CustomStringConvertible {
    public var reason: String
    public var description: String { "\(StoreLayout.syncStatus): \(reason); the next sync worker rewrites it" }
}
