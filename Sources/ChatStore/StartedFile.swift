import ChatDomain
import ChatSystem

/// `.started` in the store root (docs/FORMAT.md): the conversations `chatdir create` queued
/// whose folder a sync then moved to the name the server gave them (a Matrix room's), one
/// `<queued ID> <folder>` a line, the newest last, at most ``maxEntries``. A hint per device,
/// like `.invitations`: replaced without an fsync, read as nothing when it cannot be read. It
/// lets a command given the queued ID say where the conversation went.
public enum StartedFile {
    /// Lines kept: the newest starts.
    public static let maxEntries = 100
    /// Each line is two IDs and two bytes.
    static let maxSize = maxEntries * (2 * Name.maxLength + 2)

    /// The folder conversation `id` was moved to when it was started, if this device moved it.
    public static func folder(startedAs id: ConversationID, storeRoot: String) -> ConversationID? {
        read(storeRoot: storeRoot).last { $0.queued == id }?.folder
    }

    /// Adds that the conversation queued as `queued` is now the folder `folder`.
    public static func record(_ queued: ConversationID, movedTo folder: ConversationID, storeRoot: String)
        throws(SystemError)
    {
        var entries = read(storeRoot: storeRoot).filter { $0.queued != queued }
        entries.append((queued, folder))
        try EphemeralFile.replace(encode(entries), as: StoreLayout.started, in: storeRoot)
    }

    /// The file's bytes for `entries`: the newest ``maxEntries``, one line each.
    static func encode(_ entries: [(queued: ConversationID, folder: ConversationID)]) -> [UInt8] {
        Array(entries.suffix(maxEntries).map { $0.queued.rawValue + " " + $0.folder.rawValue + "\n" }.joined().utf8)
    }

    /// The store's entries (none when the file is missing or cannot be read).
    static func read(storeRoot: String) -> [(queued: ConversationID, folder: ConversationID)] {
        let read = try? StoreFiles.read(
            storeRoot + "/" + StoreLayout.started, relative: StoreLayout.started, limit: maxSize,
            what: "the started conversations file")
        guard let bytes = read ?? nil else { return [] }
        return decode(bytes)
    }

    /// Every line of `bytes` that names two conversation IDs; others (a damaged file) are passed over.
    static func decode(_ bytes: [UInt8]) -> [(queued: ConversationID, folder: ConversationID)] {
        bytes.split(separator: UInt8(ascii: "\n")).compactMap { line in
            let parts = line.split(separator: UInt8(ascii: " "))
            guard parts.count == 2, let queued = try? ConversationID(String(decoding: parts[0], as: UTF8.self)),
                let folder = try? ConversationID(String(decoding: parts[1], as: UTF8.self))
            else { return nil }
            return (queued, folder)
        }
    }
}
