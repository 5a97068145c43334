import ChatDomain
import ChatSystem

/// Reads one conversation's directory: `conversation.json`, `messages/`, `positions.json`, `outbox/`.
///
/// Reading a screenful touches only the newest segments: rows come from the end of history,
/// never from a scan of all of it.
public struct Conversation: Sendable {
    public let storeRoot: String
    public let id: ConversationID
    public let segmentSize: Int
    /// The store's protocol, whose rules its files keep (``StoreProtocol``).
    public let storeProtocol: StoreProtocol
    /// Whether its folders were found to be plain directories (``requirePlainDirectories()``)
    /// when this value was made, so a door it is handed to need not look again.
    var checkedPlain = false

    /// The conversation `id` under `storeRoot`, for a directory in the store layout that is not
    /// a whole store (the reference server's data directory has no manifest, and is wire v1).
    /// No I/O.
    public init(storeRoot: String, id: ConversationID, segmentSize: Int, storeProtocol: StoreProtocol = .wire) {
        self.storeRoot = storeRoot
        self.id = id
        self.segmentSize = segmentSize
        self.storeProtocol = storeProtocol
    }

    /// `conversations/<id>`, relative to the store root: the prefix of every path in errors.
    public var relativePath: String { StoreLayout.conversations + "/" + id.rawValue }
    public var directory: String { storeRoot + "/" + relativePath }
    public var messagesDirectory: String { directory + "/" + StoreLayout.messages }
    public var outboxDirectory: String { directory + "/" + StoreLayout.outbox }

    public var exists: Bool { Sys.kind(of: directory) == .directory }

    func relative(_ name: String) -> String { relativePath + "/" + name }

    /// Reads a file of this conversation; nil when it does not exist.
    ///
    /// `open`, `read`, `close`, without an `fstat` for the size (a screen reads four or five
    /// small files each time): a short read of a regular file is its end, so a file smaller
    /// than `expected` bytes (1 KiB unless said) takes one read, and a larger one is read on
    /// into a buffer that doubles. Never through a symlink, never past `limit` bytes
    /// (``StoreFiles/read(_:relative:expected:limit:what:)``).
    func read(
        _ relativeName: String, expected: Int = 1024, limit: Int = StoreFiles.maxFileBytes,
        what: String = "a store file"
    ) throws(StoreError) -> [UInt8]? {
        try StoreFiles.read(
            directory + "/" + relativeName, relative: relative(relativeName), expected: expected, limit: limit,
            what: what)
    }

    /// A buffer that holds a whole segment of this conversation in one read, as a rule.
    var expectedSegmentBytes: Int { segmentSize * 256 + 1024 }

    /// Title and members; nil when `conversation.json` does not exist yet.
    public func info() throws(StoreError) -> ConversationInfo? {
        guard let bytes = try read(StoreLayout.conversationInfo) else { return nil }
        if let info = ConversationInfo.decodeCanonical(bytes, protocol: storeProtocol) { return info }
        // A Matrix conversation started here names no room until the homeserver has made it.
        let awaitingRoom =
            storeProtocol == .matrix && Sys.kind(of: outboxDirectory + "/" + StoreLayout.creation) == .file
        if awaitingRoom,
            let info = ConversationInfo.decodeCanonical(bytes, protocol: storeProtocol, awaitingRoom: true)
        {
            return info
        }
        let decoded = ConversationInfo.decode(
            bytes, path: relative(StoreLayout.conversationInfo), protocol: storeProtocol, awaitingRoom: awaitingRoom)
        if let problem = decoded.problems.first(where: { $0.severity == .error }) { throw .damaged(problem) }
        return decoded.info
    }

    /// Every member's position; nil when positions were never loaded (ticks unknown).
    public func positions() throws(StoreError) -> Positions? {
        guard let bytes = try read(StoreLayout.positions) else { return nil }
        if let positions = PositionsFile.decodeCanonical(bytes, protocol: storeProtocol) { return positions }
        let decoded = PositionsFile.decode(bytes, path: relative(StoreLayout.positions), protocol: storeProtocol)
        if let problem = decoded.problems.first(where: { $0.severity == .error }) { throw .damaged(problem) }
        return decoded.positions
    }

    /// The outbox in queue order (oldest first).
    public func outbox() throws(StoreError) -> [OutboxEntry] {
        try outboxEntries(outboxFileNames())
    }

    /// The entries of the outbox message files `names` (in queue order), skipping any delivered
    /// since they were listed.
    func outboxEntries(_ names: [String]) throws(StoreError) -> [OutboxEntry] {
        var entries: [OutboxEntry] = []
        for name in names {
            guard let bytes = try read(StoreLayout.outbox + "/" + name) else { continue } // delivered meanwhile
            let decoded = OutboxFile.decode(bytes, name: name, path: relative(StoreLayout.outbox + "/" + name))
            if let problem = decoded.problems.first(where: { $0.severity == .error }) { throw .damaged(problem) }
            if let entry = decoded.entry { entries.append(entry) }
        }
        return entries
    }

    /// The outbox entries among `ids`, in queue order: one listing of `outbox/` (the IDs are in
    /// the file names), and only the files that match are read.
    public func outboxEntries(carrying ids: Set<ClientMessageID>) throws(StoreError) -> [OutboxEntry] {
        guard !ids.isEmpty else { return [] }
        let matching = try outboxFileNames().filter { OutboxFile.parseName($0).map { ids.contains($0.id) } ?? false }
        return matching.isEmpty ? [] : try outboxEntries(matching)
    }

    /// Names of outbox message files in queue order (ordinal names sort as the queue).
    func outboxFileNames() throws(StoreError) -> [String] {
        let names = try system { () throws(SystemError) in try Sys.listDirectoryIfPresent(outboxDirectory) }
        return Self.queueOrder(names)
    }

    /// The message files among the names of `outbox/`, in queue order.
    static func queueOrder(_ names: [String]) -> [String] {
        names.filter { !$0.hasPrefix(".") && $0 != StoreLayout.readPosition && $0 != StoreLayout.creation }.sorted()
    }

    /// The read position wanted by this user and not yet accepted by the server (`outbox/read.json`).
    public func wantedReadPosition() throws(StoreError) -> Int? {
        let name = StoreLayout.outbox + "/" + StoreLayout.readPosition
        guard let bytes = try read(name) else { return nil }
        let decoded = OutboxFile.decodeReadPosition(bytes, path: relative(name))
        if let problem = decoded.problems.first(where: { $0.severity == .error }) { throw .damaged(problem) }
        return decoded.upTo
    }

    /// The ranges of the segment files present, ascending.
    public func segmentRanges() throws(StoreError) -> [SegmentRange] {
        let names = try system { () throws(SystemError) in try Sys.listDirectoryIfPresent(messagesDirectory) }
        return names.compactMap(SegmentRange.init(fileName:)).sorted()
    }

    /// The messages of one segment; throws the first error of a damaged file, naming file and line.
    public func readSegment(_ range: SegmentRange) throws(StoreError) -> [Message] {
        try decodeSegment(range).messages
    }

    /// A segment's messages with their lines; throws the first error of a damaged file.
    func decodeSegment(_ range: SegmentRange) throws(StoreError) -> SegmentFile.Decoded {
        guard let bytes = try segmentBytes(range) else { return SegmentFile.Decoded(messages: [], problems: []) }
        return try decodeSegment(bytes, range)
    }

    /// ``decodeSegment(_:)`` of bytes read already.
    func decodeSegment(_ bytes: [UInt8], _ range: SegmentRange) throws(StoreError) -> SegmentFile.Decoded {
        let name = StoreLayout.messages + "/" + range.fileName
        let decoded = SegmentFile.decode(
            bytes, path: relative(name), range: range, reportLayout: false, protocol: storeProtocol)
        if let problem = decoded.firstError { throw .damaged(problem) }
        return decoded
    }

    /// Up to `limit` newest messages with sequence below `before` (all when nil), ascending, and
    /// whether older ones are stored. Reads segments from the newest back, only as many as needed;
    /// finds the newest through `messages/.newest` without listing the directory when it can.
    ///
    /// Decodes only the records the page shows, from the end of each canonical segment
    /// (``SegmentFile/decodeTail(_:range:count:below:)``); anything else (another layout, a
    /// damaged record among them, a client ID twice in the page) is read again whole, file by
    /// file, which gives the same page or throws the error naming file and line.
    public func newestMessages(limit: Int, before: Int? = nil) throws(StoreError) -> (
        messages: [Message], hasOlder: Bool
    ) {
        if let page = try newestMessagesFromTails(limit: limit, before: before) { return page }
        return try newestMessagesDecodingWhole(limit: limit, before: before)
    }

    /// The page from segment tails; nil when one of them is not plainly canonical and sound, or
    /// when a client ID appears twice in the page.
    func newestMessagesFromTails(limit: Int, before: Int?) throws(StoreError) -> (messages: [Message], hasOlder: Bool)?
    {
        var walk = try SegmentWalk(self, before: before)
        var tails: [[Message]] = [] // newest first
        var collected = 0
        var hasEarlier = false
        while collected < limit, let range = try walk.next() {
            guard let bytes = try segmentBytes(range) else { continue } // removed meanwhile
            guard
                let tail = SegmentFile.decodeTail(
                    bytes, range: range, count: limit - collected, below: before, protocol: storeProtocol)
            else {
                return nil
            }
            tails.append(tail.messages)
            collected += tail.messages.count
            hasEarlier = tail.hasEarlier
        }
        let messages = tails.count == 1 ? tails[0] : Array(tails.reversed().joined())
        if Self.repeatsClientID(messages) { return nil }
        return (messages, hasEarlier ? true : try walk.hasMore())
    }

    /// Whether two of `messages` share a client ID (``repeatedClientIDs(count:_:)``: sorted by a
    /// cheap hash, not a page's worth of `Set` inserts, which cost as much as decoding the records;
    /// and an ID repeated among others of the same hash is still found).
    static func repeatsClientID(_ messages: [Message]) -> Bool {
        repeatedClientIDs(count: messages.count) { messages[$0].clientMessageID }.contains(true)
    }

    /// The page from whole segment files, each decoded and checked in full.
    func newestMessagesDecodingWhole(limit: Int, before: Int?) throws(StoreError) -> (
        messages: [Message], hasOlder: Bool
    ) {
        var walk = try SegmentWalk(self, before: before)
        var collected: [Message] = []
        // Which file (index into `files`) and record each client ID came from.
        var files: [(decoded: SegmentFile.Decoded, path: String)] = []
        var seen: [ClientMessageID: (file: Int, record: Int)] = [:]
        while collected.count < limit, let range = try walk.next() {
            let decoded = try decodeSegment(range)
            let path = relative(StoreLayout.messages + "/" + range.fileName)
            // A client ID in two files is a damaged store. Files are read newest first, `check`
            // reads oldest first and names the newer copy: name it the same way here.
            for (index, message) in decoded.messages.enumerated() {
                if let newer = seen.updateValue((files.count, index), forKey: message.clientMessageID) {
                    let file = files[newer.file]
                    throw .damaged(
                        .duplicateClientID(
                            file.decoded.messages[newer.record], path: file.path,
                            line: file.decoded.lines[newer.record], otherPath: path))
                }
            }
            files.append((decoded, path))
            var messages = decoded.messages
            if let before { messages.removeAll { $0.sequence >= before } }
            collected.insert(contentsOf: messages, at: 0)
        }
        let hasOlder = collected.count > limit ? true : try walk.hasMore()
        if collected.count > limit { collected.removeFirst(collected.count - limit) }
        return (collected, hasOlder)
    }

    /// Whether a segment file exists for `range`.
    func hasSegment(_ range: SegmentRange) -> Bool {
        Sys.kind(of: messagesDirectory + "/" + range.fileName) == .file
    }

    /// The newest segment according to `messages/.newest`, checked: the ranges after it are
    /// looked for (and stepped past when they exist), and when the file it names is gone (a
    /// newer segment removed, or a crash between the two renames) a few ranges before it are
    /// tried. Nil when there is no usable hint; callers then list the directory.
    func hintedNewestSegment() -> SegmentRange? {
        guard let bytes = try? read(StoreLayout.messages + "/" + StoreLayout.newestHint, expected: 64, limit: 4096),
            let hint = SegmentRange(fileName: String(decoding: bytes.prefix { $0 != 0x0A }, as: UTF8.self)),
            hint.isAligned(size: segmentSize)
        else { return nil }
        var newest = hint
        while case let next = SegmentRange(containing: newest.last + 1, size: segmentSize), hasSegment(next) {
            newest = next
        }
        if newest != hint || hasSegment(hint) { return newest }
        var candidate = hint
        for _ in 0..<16 where candidate.first > 1 {
            candidate = SegmentRange(containing: candidate.first - 1, size: segmentSize)
            if hasSegment(candidate) { return candidate }
        }
        return nil
    }

    /// Everything a screen of this conversation shows, read from disk once.
    /// Scrolled back (`before`), it carries the edits stored later of the messages it shows
    /// (``laterEdits(of:from:)``), so they read as edited, as they do on the newest page.
    /// `limit` counts messages shown: in a Matrix store, where an edit is a record and no row,
    /// a page holding edits reads as many records more, so `view --limit 1` shows the newest
    /// message even when the newest record is an edit of an older one.
    public func snapshot(limit: Int, before: Int? = nil) throws(StoreError) -> ConversationSnapshot {
        var page = try newestMessages(limit: limit, before: before)
        while storeProtocol == .matrix, page.hasOlder {
            let edits = page.messages.count { $0.replaces != nil }
            guard page.messages.count - edits < limit else { break }
            // Strictly more each time: fewer than `limit` rows means more than `count - limit` edits.
            page = try newestMessages(limit: limit + edits, before: before)
        }
        var edits: [Message] = []
        if let before { edits = try laterEdits(of: page.messages, from: before) }
        return ConversationSnapshot(
            id: id, info: try info(), messages: page.messages, hasOlder: page.hasOlder,
            outbox: before == nil ? try outbox() : [], positions: try positions(), laterEdits: edits
        )
    }

    /// The key an edit's record has and no other record does, as the segment writer writes it.
    private static let editKey = Array(#""replaces":""#.utf8)

    /// The edits at or after sequence `from` of the messages among `page` (a page read from
    /// below `from`). Only a Matrix store has edits, and usually few: each segment from `from`
    /// on is read, and decoded only when its bytes hold an edit's key.
    public func laterEdits(of page: [Message], from sequence: Int) throws(StoreError) -> [Message] {
        guard storeProtocol == .matrix else { return [] }
        let edited = Set(page.lazy.filter { $0.replaces == nil && !$0.redacted }.compactMap(\.eventID))
        guard !edited.isEmpty else { return [] }
        var edits: [Message] = []
        for range in try segmentRanges() where range.last >= sequence {
            guard let bytes = try segmentBytes(range), Sys.find(Self.editKey, in: bytes, from: 0) != nil else {
                continue
            }
            edits += try decodeSegment(bytes, range).messages.filter { message in
                message.sequence >= sequence && message.replaces.map { edited.contains($0) } == true
            }
        }
        return edits
    }
}
