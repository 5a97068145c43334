import ChatDomain
import ChatSystem

/// A room I am invited to and have not joined (Matrix), as the last listing of the sync
/// worker found it. `chatdir sync` prints each; `chatdir list` shows them from `.invitations`.
public struct Invitation: Sendable, Hashable {
    /// What `chatdir join` takes: the room ID.
    public var room: String
    /// The room's name as the invite shows it, if it has one.
    public var name: String?
    /// Who invited me, when the invite says.
    public var inviter: String?

    public init(room: String, name: String?, inviter: String?) {
        self.room = room
        self.name = name
        self.inviter = inviter
    }
}

/// `.invitations` in the store root (docs/FORMAT.md): the invitations the sync worker's last
/// listing found, one canonical JSON object a line (`inviter`, `name`, `room`; sorted by room),
/// for `chatdir list`. Hidden and per device, a hint like `.sync-status`: replaced without an
/// fsync, absent when there are none, and read as none when it cannot be read.
public enum InvitationsFile {
    /// The most invitations kept: a homeserver cannot grow the file without bound.
    public static let maxInvitations = 1_000
    /// The longest room ID, name or inviter kept, in bytes of UTF-8 (a longer name is cut at a
    /// character boundary; a longer room ID or inviter drops the invitation).
    public static let maxFieldBytes = 255
    static let maxSize = 1 << 20

    public static func encode(_ invitations: [Invitation]) -> [UInt8] {
        var writer = JSONWriter()
        for invitation in kept(invitations) {
            writer.raw("{")
            if let inviter = invitation.inviter {
                writer.key("inviter")
                writer.write(inviter)
                writer.raw(",")
            }
            if let name = invitation.name {
                writer.key("name")
                writer.write(name)
                writer.raw(",")
            }
            writer.key("room")
            writer.write(invitation.room)
            writer.raw("}\n")
        }
        return writer.bytes
    }

    /// What is written of `invitations`: bounded, sorted by room, each room once.
    static func kept(_ invitations: [Invitation]) -> [Invitation] {
        var seen: Set<String> = []
        var kept: [Invitation] = []
        for invitation in invitations.sorted(by: { $0.room.utf8.lexicographicallyPrecedes($1.room.utf8) }) {
            guard !invitation.room.isEmpty, invitation.room.utf8.count <= maxFieldBytes,
                (invitation.inviter?.utf8.count ?? 0) <= maxFieldBytes, seen.insert(invitation.room).inserted
            else { continue }
            var shortened = invitation
            if let name = invitation.name, name.utf8.count > maxFieldBytes {
                var cut = ""
                for character in name {
                    guard cut.utf8.count + String(character).utf8.count <= maxFieldBytes else { break }
                    cut.append(character)
                }
                shortened.name = cut
            }
            kept.append(shortened)
            if kept.count == maxInvitations { break }
        }
        return kept
    }

    /// The invitations in `bytes`; nil when they are not what ``encode(_:)`` writes.
    public static func decode(_ bytes: [UInt8]) -> [Invitation]? {
        guard bytes.count <= maxSize else { return nil }
        var invitations: [Invitation] = []
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast() {
            guard
                let value = try? JSONParser.parse(
                    Array(line), limits: JSONParser.Limits(maxDepth: 1, maxMembers: 3, maxElements: 0)),
                case .object(let members) = value
            else { return nil }
            var fields: [String: String] = [:]
            for (key, member) in members {
                guard ["inviter", "name", "room"].contains(key), case .string(let text) = member,
                    text.utf8.count <= maxFieldBytes, fields.updateValue(text, forKey: key) == nil
                else { return nil }
            }
            guard let room = fields["room"], !room.isEmpty else { return nil }
            invitations.append(Invitation(room: room, name: fields["name"], inviter: fields["inviter"]))
        }
        guard bytes.isEmpty || bytes.last == 0x0A, invitations.count <= maxInvitations else { return nil }
        return invitations
    }

    /// Replaces the store's file with `invitations`, or removes it when there are none.
    public static func write(_ invitations: [Invitation], storeRoot: String) throws(SystemError) {
        guard !invitations.isEmpty else {
            try EphemeralFile.remove(StoreLayout.invitations, in: storeRoot)
            return
        }
        try EphemeralFile.replace(encode(invitations), as: StoreLayout.invitations, in: storeRoot)
    }

    /// The store's invitations: none when there is no file or it cannot be read (the next
    /// listing of a sync rewrites it).
    public static func read(storeRoot: String) -> [Invitation] {
        let read = try? StoreFiles.read(
            storeRoot + "/" + StoreLayout.invitations, relative: StoreLayout.invitations, limit: maxSize,
            what: "the invitations file")
        guard let bytes = read ?? nil else { return [] }
        return decode(bytes) ?? []
    }
}
