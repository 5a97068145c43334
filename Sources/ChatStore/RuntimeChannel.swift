import ChatDomain
import ChatSystem

/// The files a chat screen and the sync worker of one store pass each other that must not be
/// part of the store: who is typing, and a screen's wish for older pages. They are ephemeral by
/// nature, so they live on tmpfs outside the store (never in git, never fsynced), in
/// `$XDG_RUNTIME_DIR/chatdir/<store key>/` (or `/tmp/chatdir-<uid>/<store key>/` when that is
/// not set), one directory per conversation:
///
///     <conversation>/typing-me           I am typing: the wall-clock milliseconds of my last signal (screen → worker)
///     <conversation>/typing/<user>       that member is typing: milliseconds when the worker heard it (worker → screen)
///     <conversation>/older-wanted        `before=<sequence>`: the screen wants the page older than that (screen → worker)
///     <conversation>/older-answer        what became of that wish, one line (worker → screen; see ``OlderAnswer``)
///
/// Every file is replaced whole by rename, so a reader sees an old or a new value, never a mix.
/// Everything read here was written by another process and is checked like any untrusted input:
/// a file that does not parse reads as absent.
///
/// `/tmp` is everybody's: another user may make `/tmp/chatdir-<uid>` first, or plant a symlink
/// in it. So every directory of the channel, from `chatdir` (or `chatdir-<uid>`) down, is a
/// ``PrivateDirectory``: checked to be a directory owned by this user with mode 0700 whether it
/// was just made or found, and its files are opened through it, never through a symlink. A
/// directory that fails the check is refused with its path and owner (``problem()``), and
/// nothing is read from or written into it.
public struct RuntimeChannel: Sendable {
    /// The store's directory under the runtime root.
    public let root: String
    /// The directory trusted as it is (`$XDG_RUNTIME_DIR`, `/tmp`), and the directories below
    /// it down to ``root``, each checked.
    private let anchor: String
    private let components: [String]

    /// The channel of the store at `storeRoot`: the same directory for every process that opens
    /// that store, whatever its working directory or the path it was given (symlinks resolved).
    public init(storeRoot: String, runtimeDirectory: String? = Sys.environment("XDG_RUNTIME_DIR")) {
        let storeRoot = Sys.realPath(storeRoot) ?? storeRoot
        if let runtime = runtimeDirectory, runtime.hasPrefix("/") {
            anchor = runtime
            components = ["chatdir", Self.key(storeRoot)]
        } else {
            anchor = "/tmp"
            components = ["chatdir-\(Sys.currentUserID)", Self.key(storeRoot)]
        }
        root = (anchor == "/" ? "" : anchor) + "/" + components.joined(separator: "/")
    }

    /// A channel rooted at `root` exactly (tests): its nearest existing ancestor is trusted,
    /// and every directory below it is checked.
    public init(root: String) {
        self.root = root
        var anchor = DurableFile.parentPath(of: root)
        var components = [root.split(separator: "/").last.map(String.init) ?? root]
        while Sys.kind(of: anchor) == nil, anchor != "/", anchor != "." {
            components.insert(anchor.split(separator: "/").last.map(String.init) ?? anchor, at: 0)
            anchor = DurableFile.parentPath(of: anchor)
        }
        self.anchor = anchor
        self.components = components
    }

    /// The channel's directory `path` below the root (`[]`: the root), checked on the way;
    /// made with `create` (mode 0700), else nil when missing.
    public func directory(_ path: [String], create: Bool) throws(SystemError) -> PrivateDirectory? {
        try PrivateDirectory.open(components + path, under: anchor, create: create)
    }

    /// Why the channel cannot be used, when a directory of it is refused (another user's, a
    /// symlink, open to others); nil when it is sound or not made yet. Commands that use the
    /// channel say this once, so a refusal is never silent.
    public func problem() -> SystemError? {
        do throws(SystemError) {
            _ = try directory([], create: false)
            return nil
        } catch {
            return error
        }
    }

    /// How a refused channel is said to a person: what is not shared, then why.
    public static func refusal(_ error: SystemError) -> String {
        "the runtime directory is refused, so typing, older-page requests and open times are not shared with other chatdir processes: \(error)"
    }

    /// `<last path component>-<16 hex digits of FNV-1a of the whole path>`: readable, and
    /// distinct for two stores of the same name.
    static func key(_ storeRoot: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in storeRoot.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let name = storeRoot.split(separator: "/").last.map(String.init) ?? "root"
        let safe = String(
            name.unicodeScalars.filter {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_")
            }.prefix(40))
        let hex = String(hash, radix: 16)
        return (safe.isEmpty ? "store" : safe) + "-" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    public func directory(of id: ConversationID) -> String { root + "/" + id.rawValue }
    public func typingDirectory(of id: ConversationID) -> String { directory(of: id) + "/typing" }

    // MARK: typing, screen → worker

    /// Says I am typing in `id` now (`milliseconds` since the epoch).
    public func signalMyTyping(_ id: ConversationID, atMilliseconds milliseconds: Int64) throws(SystemError) {
        try write(Array("\(milliseconds)\n".utf8), to: "typing-me", in: [id.rawValue])
    }

    /// When I last signalled typing in `id`; nil when never (or unreadable).
    public func myTyping(_ id: ConversationID) -> Int64? {
        read("typing-me", in: [id.rawValue]).flatMap(Self.milliseconds)
    }

    // MARK: typing, worker → screen

    /// Notes that `user` was heard typing in `id` at `milliseconds`, in the file ``UserID/fileName``
    /// names. A user ID whose escaped form is longer than a file name may be is not noted:
    /// typing is a hint, and that member's is not shown.
    public func noteTyping(_ id: ConversationID, user: UserID, atMilliseconds milliseconds: Int64) throws(SystemError) {
        guard let name = user.fileName else { return }
        try write(Array("\(milliseconds)\n".utf8), to: name, in: [id.rawValue, "typing"])
    }

    /// Forgets that `user` was typing in `id` (their message arrived); quiet when nothing was noted.
    public func clearTyping(_ id: ConversationID, user: UserID) {
        guard let name = user.fileName, let typing = try? directory([id.rawValue, "typing"], create: false) else {
            return
        }
        typing.remove(name)
    }

    /// Every member noted typing in `id`, with when, sorted by user ID. Names that are not
    /// valid user IDs and files that do not parse are left out.
    public func typing(_ id: ConversationID) -> [(user: UserID, milliseconds: Int64)] {
        guard let typing = try? directory([id.rawValue, "typing"], create: false), let names = try? typing.names()
        else { return [] }
        return names.compactMap { name -> (user: UserID, milliseconds: Int64)? in
            guard !name.hasPrefix("."), let user = UserID.named(fileName: name),
                let time = Self.line(of: typing, name).flatMap(Self.milliseconds)
            else { return nil }
            return (user, time)
        }.sorted { $0.user.rawValue < $1.user.rawValue }
    }

    // MARK: older pages

    /// What the worker made of a screen's wish for older pages.
    public enum OlderAnswer: Hashable, Sendable {
        /// Working on the page before this sequence.
        case loading(before: Int)
        /// The page before this sequence is stored (the screen reads it from the store).
        case stored(before: Int)
        /// The server has nothing older than this sequence: the beginning of the conversation.
        case beginning(before: Int)
        /// The fetch failed; the words say why (already safe to show once neutralised).
        case failed(before: Int, reason: String)

        public var before: Int {
            switch self {
            case .loading(let before), .stored(let before), .beginning(let before), .failed(let before, _): before
            }
        }

        var line: String {
            switch self {
            case .loading(let before): "loading before=\(before)"
            case .stored(let before): "stored before=\(before)"
            case .beginning(let before): "beginning before=\(before)"
            case .failed(let before, let reason):
                "failed before=\(before) " + reason.filter { $0 != "\n" && $0 != "\r" }
            }
        }

        init?(line: String) {
            let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count >= 2, parts[1].hasPrefix("before="),
                let before = Int(parts[1].dropFirst("before=".count)), before > 0
            else { return nil }
            switch (parts[0], parts.count) {
            case ("loading", 2): self = .loading(before: before)
            case ("stored", 2): self = .stored(before: before)
            case ("beginning", 2): self = .beginning(before: before)
            case ("failed", 3): self = .failed(before: before, reason: String(parts[2]))
            default: return nil
            }
        }
    }

    /// Asks the worker for the page of `id` older than `sequence`.
    /// Asking again after a failure clears the failed answer, so the worker tries again.
    public func wantOlder(_ id: ConversationID, before sequence: Int) throws(SystemError) {
        if case .failed(let before, _)? = olderAnswer(id), before == sequence,
            let conversation = try? directory([id.rawValue], create: false)
        {
            conversation.remove("older-answer")
        }
        try write(Array("before=\(sequence)\n".utf8), to: "older-wanted", in: [id.rawValue])
    }

    /// The sequence a screen wants older pages before; nil when it wants none.
    public func olderWanted(_ id: ConversationID) -> Int? {
        guard let text = read("older-wanted", in: [id.rawValue]), text.hasPrefix("before="),
            let before = Int(text.dropFirst("before=".count)), before > 0
        else { return nil }
        return before
    }

    /// The worker's answer to the wish (it leaves the wish in place; a new wish replaces it).
    public func answerOlder(_ id: ConversationID, _ answer: OlderAnswer) throws(SystemError) {
        try write(Array((answer.line + "\n").utf8), to: "older-answer", in: [id.rawValue])
    }

    public func olderAnswer(_ id: ConversationID) -> OlderAnswer? {
        read("older-answer", in: [id.rawValue]).flatMap(OlderAnswer.init(line:))
    }

    /// Every conversation with a channel directory (for a worker's first look).
    public func conversations() -> [ConversationID] {
        guard let root = try? directory([], create: false), let names = try? root.names() else { return [] }
        return names.compactMap { try? ConversationID($0) }.sorted { $0.rawValue < $1.rawValue }
    }

    // MARK: files

    /// Replaces `name` in the channel's directory `path` by rename (no fsync: tmpfs, and nothing
    /// here must survive a crash), making the directories (mode 0700) first.
    private func write(_ bytes: [UInt8], to name: String, in path: [String]) throws(SystemError) {
        guard let directory = try directory(path, create: true) else { return }
        try directory.replace(name, with: bytes)
    }

    /// At most one line of text (4 KiB), without its newline; nil when absent, unreadable, or
    /// in a directory that is refused.
    private func read(_ name: String, in path: [String]) -> String? {
        guard let directory = try? directory(path, create: false) else { return nil }
        return Self.line(of: directory, name)
    }

    private static func line(of directory: borrowing PrivateDirectory, _ name: String) -> String? {
        guard let bytes = try? directory.read(name, limit: 4096) else { return nil }
        let line =
            bytes.split(separator: UInt8(ascii: "\n"), maxSplits: 1, omittingEmptySubsequences: false).first ?? []
        return String(validating: line, as: UTF8.self)
    }

    private static func milliseconds(_ text: String) -> Int64? {
        guard let value = Int64(text), value >= 0 else { return nil }
        return value
    }
}
