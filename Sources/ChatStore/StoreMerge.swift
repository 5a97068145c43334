import ChatDomain
import ChatSystem

/// Merges two versions of one shared store file, as git's merge driver (`chatdir merge-file`):
/// the result is what one device that had seen both sides would hold, in the store's own bytes.
///
/// - A segment is the union of both sides' records by sequence: a record on both sides is kept
///   once; one sequence holding two different records (or one client message ID at two
///   sequences) is a real conflict, left between git's markers for a person to resolve. Each
///   hunk spans every sequence its conflicts link, and deleting the markers and either side of
///   each hunk, chosen hunk by hunk, leaves a sound segment (``conflictedSegment(_:hunks:)``).
///   In a Matrix store, one event ID at two sequences is a conflict too, and one sequence holding
///   the same event on both sides, redacted on exactly one, is not: the redacted record wins,
///   since a redaction is newer than the original on every device.
/// - `positions.json` takes the higher of each number per member (``Positions/merged(with:)``).
/// - `conversation.json` takes the side whose members include the other's; equal members with
///   two titles take the title that changed since the base; anything else is a conflict.
///
/// Every side is read with the store's own decoders and the result written with its own
/// encoders (``SegmentFile``, ``PositionsFile``, ``ConversationInfo``), never a second one.
public enum StoreMerge {
    /// Which kind of store file a path names, judged by its last components, so a store kept
    /// anywhere inside a repository merges the same way.
    public enum Kind: Hashable, Sendable {
        case segment(SegmentRange)
        case positions
        case conversationInfo
    }

    /// The kind of store file at `path` (relative to the repository), or nil for any other file.
    public static func kind(ofPath path: String) -> Kind? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard let name = parts.last else { return nil }
        func isConversation(at index: Int) -> Bool {
            index >= 1 && parts[index - 1] == StoreLayout.conversations && Name.problem(with: parts[index]) == nil
        }
        if parts.count >= 3, isConversation(at: parts.count - 2) {
            if name == StoreLayout.positions { return .positions }
            if name == StoreLayout.conversationInfo { return .conversationInfo }
        }
        if parts.count >= 4, parts[parts.count - 2] == StoreLayout.messages, isConversation(at: parts.count - 3),
            let range = SegmentRange(fileName: name)
        {
            return .segment(range)
        }
        return nil
    }

    /// What a merge gives: the bytes to leave in place of our side, and the conflicts they
    /// hold between markers (none for a clean merge).
    public struct Outcome: Hashable, Sendable {
        public var bytes: [UInt8]
        public var conflicts: [String]
        public var isClean: Bool { conflicts.isEmpty }
    }

    /// Why a merge could not even start.
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// One side is not a sound file of its kind (`side` is "ours", "theirs" or "the base").
        case damaged(side: String, StoreProblem)
        /// The path is not a file chatdir merges.
        case notAStoreFile(path: String)
        /// A conflicted file whose resolution would not be sound (its markers are not the
        /// driver's, or keeping a side would leave a file the store refuses).
        case unresolvable(StoreProblem)
        /// A side could not be read or the result not written.
        case system(SystemError)

        public var description: String {
            switch self {
            case .damaged(let side, let problem):
                "cannot merge \(problem.path): \(side) is damaged: \(problem.line.map { "line \($0): " } ?? "")\(problem.message)"
            case .notAStoreFile(let path):
                "\(quoted(path)) is not a file chatdir merges (conversations/*/conversation.json, positions.json or messages/<first>-<last>.json); check the merge=chatdir lines of .gitattributes"
            case .unresolvable(let problem):
                "cannot resolve \(problem.path)\(problem.line.map { ":\($0)" } ?? ""): \(problem.message)"
            case .system(let error):
                "\(error)"
            }
        }
    }

    /// Merges `ours` and `theirs` (with `base`, their common ancestor, empty when git has none)
    /// of the store file at `path`.
    public static func merge(base: [UInt8], ours: [UInt8], theirs: [UInt8], path: String) throws(Failure) -> Outcome {
        guard let kind = Self.kind(ofPath: path) else { throw .notAStoreFile(path: path) }
        switch kind {
        case .segment(let range): return try mergeSegments(ours: ours, theirs: theirs, path: path, range: range)
        case .positions: return try mergePositions(ours: ours, theirs: theirs, path: path)
        case .conversationInfo: return try mergeConversationInfo(base: base, ours: ours, theirs: theirs, path: path)
        }
    }

    /// git's interface: reads the three files, merges them as `path`, and replaces `oursFile`
    /// with the result (atomically, as every store write). Returns the outcome written.
    public static func mergeFiles(base baseFile: String, ours oursFile: String, theirs theirsFile: String, path: String)
        throws(Failure) -> Outcome
    {
        func read(_ file: String) throws(Failure) -> [UInt8] {
            do { return try Sys.readFile(file) } catch { throw .system(error) }
        }
        let outcome = try merge(
            base: try read(baseFile), ours: try read(oursFile), theirs: try read(theirsFile), path: path)
        let name = oursFile.split(separator: "/").last.map(String.init) ?? oursFile
        do { try DurableFile.write(outcome.bytes, to: name, in: DurableFile.parentPath(of: oursFile)) } catch {
            throw .system(error)
        }
        return outcome
    }

    // MARK: - Segments

    static func mergeSegments(ours: [UInt8], theirs: [UInt8], path: String, range: SegmentRange) throws(Failure)
        -> Outcome
    {
        let storeProtocol = segmentProtocol(ours, theirs)
        let mine = try decodeSegment(ours, side: "ours", path: path, range: range, protocol: storeProtocol)
        let other = try decodeSegment(theirs, side: "theirs", path: path, range: range, protocol: storeProtocol)
        var bySequence: [Int: (ours: Message?, theirs: Message?)] = [:]
        for message in mine { bySequence[message.sequence, default: (nil, nil)].ours = message }
        for message in other { bySequence[message.sequence, default: (nil, nil)].theirs = message }
        for (sequence, pair) in bySequence {
            if let mine = pair.ours, let other = pair.theirs, let redacted = redactionWinner(mine, other) {
                bySequence[sequence] = (redacted, redacted)
            }
        }

        // A sequence is in conflict when the sides hold two different records there, or when
        // one client message ID (or event ID) sits at two sequences (a message is stored once).
        // Each conflict links the sequences it involves: one, or the ID's two.
        var conflicted: Set<Int> = []
        var conflicts: [String] = []
        var links: [ClosedRange<Int>] = []
        var sequencesOfID: [ClientMessageID: Set<Int>] = [:]
        var sequencesOfEvent: [EventID: Set<Int>] = [:]
        for (sequence, pair) in bySequence {
            for message in [pair.ours, pair.theirs].compactMap({ $0 }) {
                sequencesOfID[message.clientMessageID, default: []].insert(sequence)
                if let eventID = message.eventID { sequencesOfEvent[eventID, default: []].insert(sequence) }
            }
        }
        for sequence in bySequence.keys.sorted() {
            guard let pair = bySequence[sequence], let mine = pair.ours, let other = pair.theirs, mine != other else {
                continue
            }
            conflicted.insert(sequence)
            links.append(sequence...sequence)
            conflicts.append(
                "sequence \(sequence) holds \(mine.clientMessageID) on our side and \(other.clientMessageID == mine.clientMessageID ? "a different record of it" : other.clientMessageID.description) on theirs"
            )
        }
        for (id, sequences) in sequencesOfID.sorted(by: { $0.key < $1.key }) where sequences.count > 1 {
            conflicted.formUnion(sequences)
            if let low = sequences.min(), let high = sequences.max() { links.append(low...high) }
            conflicts.append(
                "client message ID \(id) is at sequence \(sequences.sorted().map(String.init).joined(separator: " and ")) on the two sides"
            )
        }
        for (eventID, sequences) in sequencesOfEvent.sorted(by: { $0.key < $1.key }) where sequences.count > 1 {
            conflicted.formUnion(sequences)
            if let low = sequences.min(), let high = sequences.max() { links.append(low...high) }
            conflicts.append(
                "event ID \(eventID) is at sequence \(sequences.sorted().map(String.init).joined(separator: " and ")) on the two sides"
            )
        }
        let slots: [Slot] = bySequence.keys.sorted().compactMap { sequence in
            bySequence[sequence].map {
                Slot(sequence: sequence, ours: $0.ours, theirs: $0.theirs, conflicted: conflicted.contains(sequence))
            }
        }
        if conflicts.isEmpty {
            return Outcome(bytes: SegmentFile.encode(slots.compactMap { $0.ours ?? $0.theirs }), conflicts: [])
        }
        return Outcome(bytes: conflictedSegment(slots, hunks: hunks(linking: links, in: slots)), conflicts: conflicts)
    }

    /// One sequence of a segment merge: each side's record there (nil when that side has none),
    /// and whether a conflict involves it.
    struct Slot {
        var sequence: Int
        var ours: Message?
        var theirs: Message?
        var conflicted: Bool

        /// The record a person who keeps `side` keeps here: that side's at a conflicted
        /// sequence (none when it has none), and elsewhere the one record the sides agree on or
        /// only one of them has, as a clean merge keeps it.
        func kept(by side: Side) -> Message? {
            guard conflicted else { return ours ?? theirs }
            return side == .ours ? ours : theirs
        }
    }

    /// A side of a conflict hunk.
    enum Side { case ours, theirs }

    /// The hunks of a conflicted merge, as ranges of indices into `slots`: each `link` (the
    /// sequences one conflict involves, ascending) covers every slot from its first sequence
    /// to its last, and links that overlap or touch (no slot between them) make one hunk. So the
    /// two sequences of a client ID at two places are always in one hunk, and hunks are apart.
    static func hunks(linking links: [ClosedRange<Int>], in slots: [Slot]) -> [ClosedRange<Int>] {
        var index: [Int: Int] = [:]
        for (position, slot) in slots.enumerated() { index[slot.sequence] = position }
        let spans = links.compactMap { link -> ClosedRange<Int>? in
            guard let low = index[link.lowerBound], let high = index[link.upperBound] else { return nil }
            return low...high
        }.sorted { $0.lowerBound < $1.lowerBound }
        var hunks: [ClosedRange<Int>] = []
        for span in spans {
            if let last = hunks.last, span.lowerBound <= last.upperBound + 1 {
                hunks[hunks.count - 1] = last.lowerBound...max(last.upperBound, span.upperBound)
            } else {
                hunks.append(span)
            }
        }
        return hunks
    }

    /// A segment with each hunk between git's markers, laid out so that deleting the markers
    /// and, in each hunk independently, either side leaves a sound segment.
    ///
    /// Outside the hunks is the clean merge's record of each sequence. Between `<<<<<<< ours`
    /// and `=======` is every record of the hunk's sequences that keeping ours keeps (``Slot/kept(by:)``),
    /// between `=======` and `>>>>>>> theirs` every record keeping theirs keeps: a record no
    /// conflict involves is on both sides, so keeping either drops nothing a clean merge holds.
    /// Why any choice is sound:
    /// - sequences ascend: the hunks are apart, and each side lists its sequences in order;
    /// - each client ID once: a record outside the conflicts has an ID found at no other
    ///   sequence, and an ID at two sequences has both in one hunk, once on each side;
    /// - the commas: every line ends with a comma but the file's last record, and no side of a
    ///   hunk is empty (each hunk holds a conflict, and a conflict has a record on each side:
    ///   two records at one sequence, or one ID at two), so a side's last record is the file's
    ///   last exactly when the hunk ends the file, whichever side is kept.
    static func conflictedSegment(_ slots: [Slot], hunks: [ClosedRange<Int>]) -> [UInt8] {
        var writer = JSONWriter()
        writer.raw("[\n")
        func write(_ messages: [Message], endingFile: Bool) {
            for (index, message) in messages.enumerated() {
                SegmentFile.writeRecord(message, into: &writer)
                writer.raw(endingFile && index == messages.count - 1 ? "\n" : ",\n")
            }
        }
        var next = 0
        for hunk in hunks {
            write(slots[next..<hunk.lowerBound].compactMap { $0.kept(by: .ours) }, endingFile: false)
            let endsFile = hunk.upperBound == slots.count - 1
            writer.raw("<<<<<<< ours\n")
            write(slots[hunk].compactMap { $0.kept(by: .ours) }, endingFile: endsFile)
            writer.raw("=======\n")
            write(slots[hunk].compactMap { $0.kept(by: .theirs) }, endingFile: endsFile)
            writer.raw(">>>>>>> theirs\n")
            next = hunk.upperBound + 1
        }
        write(slots[next...].compactMap { $0.kept(by: .ours) }, endingFile: true)
        writer.raw("]\n")
        return writer.bytes
    }

    static func decodeSegment(
        _ bytes: [UInt8], side: String, path: String, range: SegmentRange, protocol storeProtocol: StoreProtocol
    ) throws(Failure) -> [Message] {
        let decoded = SegmentFile.decode(bytes, path: path, range: range, reportLayout: false, protocol: storeProtocol)
        if let problem = decoded.firstError { throw .damaged(side: side, problem) }
        return decoded.messages
    }

    /// The record two devices agree on when they stored one event at one sequence and exactly
    /// one of them has seen its redaction: the redacted one, which every device ends with.
    /// Nil for any other pair, which stays a conflict when the records differ.
    static func redactionWinner(_ mine: Message, _ other: Message) -> Message? {
        guard let event = mine.eventID, event == other.eventID, mine.redacted != other.redacted else { return nil }
        return mine.redacted ? mine : other
    }

    /// The protocol of the store segments come from, read off their bytes: git hands the driver
    /// three files, not the store. Every record of a Matrix store holds an event ID right after
    /// its client ID, and a wire v1 store's never do; a quote inside a string is always escaped,
    /// so only a record's own key matches. A side of the other protocol is then refused as damaged.
    static func segmentProtocol(_ sides: [UInt8]...) -> StoreProtocol {
        let key = Array("\",\"eventId\":\"".utf8)
        return sides.contains { Sys.find(key, in: $0, from: 0) != nil } ? .matrix : .wire
    }

    // MARK: - positions.json

    static func mergePositions(ours: [UInt8], theirs: [UInt8], path: String) throws(Failure) -> Outcome {
        func decode(_ bytes: [UInt8], side: String) throws(Failure) -> Positions {
            let decoded = PositionsFile.decode(bytes, path: path, protocol: nil)
            if let problem = decoded.problems.first(where: { $0.severity == .error }) {
                throw .damaged(side: side, problem)
            }
            return decoded.positions
        }
        let merged = try decode(ours, side: "ours").merged(with: try decode(theirs, side: "theirs"))
        return Outcome(bytes: PositionsFile.encode(merged), conflicts: [])
    }

    // MARK: - conversation.json

    static func mergeConversationInfo(base: [UInt8], ours: [UInt8], theirs: [UInt8], path: String) throws(Failure)
        -> Outcome
    {
        // Ours says which protocol the store is (Matrix when it names a room); theirs must agree.
        func decode(_ bytes: [UInt8], side: String, as storeProtocol: StoreProtocol?) throws(Failure)
            -> ConversationInfo
        {
            let decoded = ConversationInfo.decode(bytes, path: path, protocol: storeProtocol)
            guard let info = decoded.info else {
                throw .damaged(
                    side: side,
                    decoded.problems.first { $0.severity == .error } ?? StoreProblem(path: path, "not readable"))
            }
            return info
        }
        let mine = try decode(ours, side: "ours", as: nil)
        let other = try decode(theirs, side: "theirs", as: mine.storeProtocol)
        // The base only breaks a tie between two titles; git gives an empty one for two additions.
        let ancestor = base.isEmpty ? nil : ConversationInfo.decode(base, path: path, protocol: nil).info
        let mineMembers = Set(mine.members)
        let otherMembers = Set(other.members)
        let chosen: ConversationInfo?
        if mine.roomID != other.roomID {
            chosen = nil
        } else if mineMembers == otherMembers {
            if mine.title == other.title || ancestor?.title == other.title {
                chosen = mine
            } else if ancestor?.title == mine.title {
                chosen = other
            } else {
                chosen = nil
            }
        } else if mineMembers.isSuperset(of: otherMembers) {
            chosen = mine
        } else if otherMembers.isSuperset(of: mineMembers) {
            chosen = other
        } else {
            chosen = nil
        }
        if var chosen {
            // A room never turns encryption off again: the side that saw it turn on is newer.
            chosen.encrypted = mine.encrypted || other.encrypted
            return Outcome(bytes: chosen.encode(), conflicts: [])
        }
        let reason =
            if let mineRoom = mine.roomID, let otherRoom = other.roomID, mineRoom != otherRoom {
                "the room is \(quoted(mineRoom)) on our side and \(quoted(otherRoom)) on theirs"
            } else if mineMembers == otherMembers {
                "the title is \(quoted(mine.title)) on our side and \(quoted(other.title)) on theirs"
            } else {
                "neither side's members include the other's (ours: \(mine.members.sorted().map(\.rawValue).joined(separator: ",")); theirs: \(other.members.sorted().map(\.rawValue).joined(separator: ",")))"
            }
        return Outcome(
            bytes: Array("<<<<<<< ours\n".utf8) + mine.encode() + Array("=======\n".utf8) + other.encode()
                + Array(">>>>>>> theirs\n".utf8),
            conflicts: [reason])
    }
}
