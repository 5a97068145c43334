import ChatDomain
import ChatSystem

/// How every file of a store is reached: never through a symbolic link, and never more of it
/// than its kind can hold. A store travels by git, so its tree is whatever a commit made it:
/// a segment replaced by a link to `/dev/zero` must not be read until memory runs out, and a
/// conversation folder that is a link to a directory outside the store must not be written
/// into. Readers, the writer doors and `check` all go through here, so they refuse the same
/// things with the same words.
public enum StoreFiles {
    /// The most bytes a record line of a segment can take: a text of ``DomainError/maxTextBytes``
    /// with every character escaped (`\u0001` is six bytes for one), and 1 KiB for the other
    /// fields (a UUID, a user ID, a sequence, a timestamp of at most 64 bytes) and for layout.
    public static let maxRecordBytes = 6 * DomainError.maxTextBytes + 1024

    /// The most bytes a Matrix store's record line can take: ``maxRecordBytes``, and its event
    /// ID, the event it replaces and its kind (at most 255 bytes each, escaped at most six bytes
    /// a byte) with their keys and `"redacted":true`.
    public static let maxMatrixRecordBytes = maxRecordBytes + 3 * 6 * MatrixIdentifierGrammar.maxBytes + 64

    /// The most bytes a record line can take in a store of `storeProtocol`.
    public static func maxRecordBytes(_ storeProtocol: StoreProtocol) -> Int {
        storeProtocol == .matrix ? maxMatrixRecordBytes : maxRecordBytes
    }

    /// The most bytes any store file other than a segment can take (a manifest, conversation
    /// details, positions of a large room's members, an outbox message with its error).
    public static let maxFileBytes = 16 << 20

    /// The most bytes a segment of `segmentSize` records can take in a store of `storeProtocol`:
    /// the record lines, `[` and `]`.
    public static func maxSegmentBytes(segmentSize: Int, protocol storeProtocol: StoreProtocol = .wire) -> Int {
        segmentSize * maxRecordBytes(storeProtocol) + 4
    }

    /// What a segment of `segmentSize` records is called when it is too large.
    static func segment(of segmentSize: Int) -> String {
        "a segment of \(segmentSize) message\(segmentSize == 1 ? "" : "s")"
    }

    /// The bytes of the store file at `path` (`relative` names it in problems), or nil when it
    /// does not exist. Opened with `O_NOFOLLOW` and read at most `limit` bytes.
    /// - Throws: ``StoreError/damaged(_:)`` for a symlink or a file past `limit` (named with its
    ///   size; `what` says what it should be), ``StoreError/system(_:)`` for other failures.
    static func read(
        _ path: String, relative: String, expected: Int = 1024, limit: Int = maxFileBytes, what: String = "a store file"
    ) throws(StoreError) -> [UInt8]? {
        let fd: FileDescriptor
        do throws(SystemError) {
            fd = try FileDescriptor.open(path, [.readOnly, .noFollow])
        } catch {
            if error.isNotFound { return nil }
            if error.isSymbolicLink { throw .damaged(symbolicLink(relative)) }
            throw .system(error)
        }
        do throws(SystemError) {
            return try fd.readToEnd(expected: expected, limit: limit, path: path)
        } catch {
            guard error.isTooLarge else { throw .system(error) }
            let size = (try? fd.size(path: path)).map { "\($0) bytes" } ?? "more than \(limit) bytes"
            throw .damaged(
                StoreProblem(
                    path: relative,
                    "\(size), more than \(what) can be (at most \(limit) bytes): damaged; restore it from git or another device, or remove it and run `chatdir sync`"
                ))
        }
    }

    /// A symbolic link where a store file should be.
    static func symbolicLink(_ relative: String) -> StoreProblem {
        StoreProblem(
            path: relative,
            "a symbolic link; a store holds only plain files and directories, and chatdir reads and writes nothing through a link (a commit may have put it there): replace it with the file itself, or remove it and run `chatdir sync`"
        )
    }

    /// Something other than a plain directory where a store directory should be.
    static func notPlainDirectory(_ relative: String, found: Sys.FileKind) -> StoreProblem {
        let what =
            switch found {
            case .symlink: "a symbolic link"
            case .file: "a file"
            case .directory, .other: "not a plain directory"
            }
        return StoreProblem(
            path: relative,
            "\(what), not a directory; a store holds only plain files and directories, and chatdir reads and writes nothing through a link (a commit may have put it there): remove it (`rm \(relative)`) and run `chatdir sync` to fetch it again"
        )
    }

    /// Refuses `path` (`relative` names it) when something other than a directory is there;
    /// a missing directory is fine (`lstat(2)`: a link is not followed). Returns whether it exists.
    @discardableResult
    static func requireDirectory(_ path: String, relative: String) throws(StoreError) -> Bool {
        switch Sys.kind(of: path) {
        case nil: return false
        case .directory?: return true
        case let found?: throw .damaged(notPlainDirectory(relative, found: found))
        }
    }
}

extension Conversation {
    /// Refuses a conversation whose folder, `messages/` or `outbox/` is not a plain directory
    /// (a symlink, a file): every command that reads or writes the conversation checks this
    /// first, so nothing is read from or written to a directory outside the store. Four
    /// `lstat(2)` calls; returns whether the conversation's folder exists.
    @discardableResult
    public func requirePlainDirectories() throws(StoreError) -> Bool {
        try StoreFiles.requireDirectory(
            storeRoot + "/" + StoreLayout.conversations, relative: StoreLayout.conversations)
        guard try StoreFiles.requireDirectory(directory, relative: relativePath) else { return false }
        try StoreFiles.requireDirectory(messagesDirectory, relative: relative(StoreLayout.messages))
        try StoreFiles.requireDirectory(outboxDirectory, relative: relative(StoreLayout.outbox))
        return true
    }

    /// The most bytes one of this conversation's segments can take.
    var maxSegmentBytes: Int { StoreFiles.maxSegmentBytes(segmentSize: segmentSize, protocol: storeProtocol) }

    /// The bytes of the segment for `range`; nil when it does not exist.
    func segmentBytes(_ range: SegmentRange) throws(StoreError) -> [UInt8]? {
        try read(
            StoreLayout.messages + "/" + range.fileName, expected: expectedSegmentBytes, limit: maxSegmentBytes,
            what: StoreFiles.segment(of: segmentSize))
    }
}
