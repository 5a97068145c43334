import Foundation

/// The `sqlite3` command line on the SQLite peer's databases: what a person who kept chats in
/// SQLite would run instead of `chatdir view`, `send` and `list`, timed with the same harness
/// (posix_spawn → wait4, median after a warm-up run), each by turns with the chatdir command
/// it stands beside (``CLIWorkloads/pairedMedianWalls(_:_:runs:)``).
enum SQLiteShell {
    /// `sqlite3` on PATH, or nil when it is not installed (the bench then skips its rows and says so).
    static func locate() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = String(directory) + "/sqlite3"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// The newest 50 rows of `c1`, as `chatdir view c1` shows them.
    static let viewQuery =
        "select sequence, senderId, sentAt, text from messages where conversation = 'c1' order by sequence desc limit 50"

    /// What `chatdir list` prints for each conversation: its newest message and its pending and
    /// failed outbox counts. The conversations are found by skipping through the primary key
    /// (one index seek each), as someone who knew SQLite would write it; `select distinct`
    /// would scan every row (about a second at 1M, cold).
    static let listQuery = """
        with recursive c(conversation) as (select min(conversation) from messages \
        union all select (select min(conversation) from messages where conversation > c.conversation) from c where c.conversation is not null) \
        select c.conversation, m.sequence, m.senderId, m.sentAt, m.text, \
        (select count(*) from outbox o where o.conversation = c.conversation and o.state = 'pending'), \
        (select count(*) from outbox o where o.conversation = c.conversation and o.state = 'failed') \
        from c join messages m on m.conversation = c.conversation \
        and m.sequence = (select max(sequence) from messages where conversation = c.conversation)
        """

    /// What `chatdir send c1 "on my way"` does: one durable row in the outbox, in WAL mode
    /// (the peer's databases are) with `synchronous=full`. A fresh ID each run, made by SQLite.
    static let sendStatement = """
        pragma synchronous = full; \
        insert into outbox (clientMessageId, conversation, text, createdAt, state) \
        values (lower(hex(randomblob(16))), 'c1', 'on my way', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'pending')
        """

    /// `chatdir` and `sqlite3 DATABASE SQL` by turns (``CLIWorkloads/pairedMedianWalls(_:_:runs:)``):
    /// their median wall times, ms.
    static func paired(_ chatdir: [String], _ sqlite3: String, database: String, _ sql: String, runs: Int) throws -> (
        chatdir: Double, sqlite3: Double
    ) {
        let walls = try CLIWorkloads.pairedMedianWalls(chatdir, [sqlite3, database, sql], runs: runs)
        return (walls.first, walls.second)
    }

    /// `chatdir send` into a 1,000-message scratch store by turns with the insert into a copy
    /// of `database` (the cached one stays as the peer runner made it), both in `scratch`.
    static func send(chatdir: String, _ sqlite3: String, database: String, scratch: String, runs: Int) throws -> (
        chatdir: Double, sqlite3: Double
    ) {
        Subprocess.removeTree(scratch)
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { Subprocess.removeTree(scratch) }
        let copy = scratch + "/chat.db"
        try FileManager.default.copyItem(atPath: database, toPath: copy)
        try CLIWorkloads.sendScratch(chatdir: chatdir, at: scratch + "/store")
        return try paired(
            CLIWorkloads.sendArguments(chatdir: chatdir, scratch: scratch + "/store"), sqlite3, database: copy,
            sendStatement, runs: runs)
    }
}
