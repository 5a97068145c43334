import ChatDomain
import ChatSystem

/// Validates a whole store or fixture directory without writing anything: every file, every
/// record, the rules between files. What `chatdir check` prints.
public struct StoreChecker {
    /// Everything found, and how much was looked at.
    public struct Report: Sendable {
        public var problems: [StoreProblem] = []
        public var conversations = 0
        public var segments = 0
        public var messages = 0
        public var outboxFiles = 0

        public var errors: [StoreProblem] { problems.filter { $0.severity == .error } }
        public var warnings: [StoreProblem] { problems.filter { $0.severity == .warning } }
    }

    public let root: String
    private var report = Report()
    /// Told the count of messages checked so far after each segment (for a progress display).
    private let progress: (Int) -> Void

    /// Checks the store at `root`; `progress` hears how many messages were checked so far,
    /// after each segment.
    public static func check(root: String, progress: @escaping (Int) -> Void = { _ in }) -> Report {
        var checker = StoreChecker(root: root, progress: progress)
        checker.run()
        checker.report.problems.sort { ($0.path, $0.line ?? 0) < ($1.path, $1.line ?? 0) }
        return checker.report
    }

    private init(root: String, progress: @escaping (Int) -> Void) {
        self.root = root
        self.progress = progress
    }

    private mutating func error(_ path: String, line: Int? = nil, _ message: String) {
        report.problems.append(StoreProblem(path: path, line: line, message))
    }

    private mutating func warning(_ path: String, line: Int? = nil, _ message: String) {
        report.problems.append(StoreProblem(path: path, line: line, message, severity: .warning))
    }

    /// A store file's bytes (nil when missing), read as every reader reads it: never through a
    /// symlink, never past what its kind can hold (``StoreFiles``).
    private func read(_ relative: String, limit: Int = StoreFiles.maxFileBytes, what: String = "a store file")
        -> Result<[UInt8]?, StoreError>
    {
        Result { () throws(StoreError) in
            try StoreFiles.read(root + "/" + relative, relative: relative, limit: limit, what: what)
        }
    }

    /// Reports why a file could not be read, in the words a reader fails with.
    private mutating func report(_ failure: StoreError, at relative: String) {
        if case .damaged(let problem) = failure {
            report.problems.append(problem)
        } else {
            error(relative, "cannot be read: \(failure)")
        }
    }

    private func list(_ relative: String) -> [String]? {
        try? Sys.listDirectory(root + "/" + relative).sorted()
    }

    /// The names in the store directory `relative`; nil (with the problem reported) when it is
    /// a symlink or a file, so nothing outside the store is looked at.
    private mutating func listPlain(_ relative: String) -> [String]? {
        do throws(StoreError) {
            try StoreFiles.requireDirectory(root + "/" + relative, relative: relative)
        } catch {
            report(error, at: relative)
            return nil
        }
        return list(relative)
    }

    private mutating func run() {
        guard Sys.kind(of: root) == .directory else {
            error(root, "not a directory; give the path of a store (the directory that holds \(StoreLayout.manifest))")
            return
        }
        let manifest: Manifest
        switch read(StoreLayout.manifest, limit: 1 << 20, what: "a manifest") {
        case .failure(let failure):
            report(failure, at: StoreLayout.manifest)
            return
        case .success(nil):
            error(StoreLayout.manifest, "missing: every store has one; create a store with `chatdir init`")
            return
        case .success(let bytes?):
            do {
                manifest = try Manifest.decode(bytes, path: StoreLayout.manifest)
            } catch {
                switch error {
                case .damaged(let problem): report.problems.append(problem)
                case .unsupportedFormat(_, let found):
                    self.error(StoreLayout.manifest, StoreError.unsupportedFormatMessage(found))
                default: self.error(StoreLayout.manifest, error.description)
                }
                return
            }
        }
        checkModes()
        let known: Set<String> = [StoreLayout.manifest, StoreLayout.conversations, StoreLayout.lock]
        for name in list("") ?? [] where !known.contains(name) && !name.hasPrefix(".") {
            warning(name, "not part of a chatdir store; chatdir ignores it")
        }
        if let kind = Sys.kind(of: root + "/" + StoreLayout.conversations), kind != .directory {
            report.problems.append(StoreFiles.notPlainDirectory(StoreLayout.conversations, found: kind))
            return
        }
        guard let names = list(StoreLayout.conversations) else {
            error(
                StoreLayout.conversations, "missing: create the directory (`mkdir -m 700 \(StoreLayout.conversations)`)"
            )
            return
        }
        for name in names where !name.hasPrefix(".") {
            let path = StoreLayout.conversations + "/" + name
            if let reason = Name.problem(with: name) {
                error(path, "\(quoted(name)) is not a valid conversation ID: it \(reason); rename the directory")
                continue
            }
            if let kind = Sys.kind(of: root + "/" + path), kind != .directory {
                report.problems.append(StoreFiles.notPlainDirectory(path, found: kind))
                continue
            }
            checkConversation(path, segmentSize: manifest.segmentSize, storeProtocol: manifest.storeProtocol)
        }
    }

    private mutating func checkConversation(_ path: String, segmentSize: Int, storeProtocol: StoreProtocol) {
        report.conversations += 1
        let known: Set<String> = [
            StoreLayout.conversationInfo, StoreLayout.messages, StoreLayout.positions, StoreLayout.outbox,
        ]
        for name in list(path) ?? [] where !known.contains(name) {
            if name.hasPrefix(".") {
                checkTemporary(path + "/" + name)
                continue
            }
            warning(path + "/" + name, "not part of a conversation; chatdir ignores it")
        }
        switch read(path + "/" + StoreLayout.conversationInfo) {
        case .success(let bytes?):
            report.problems +=
                ConversationInfo.decode(
                    bytes, path: path + "/" + StoreLayout.conversationInfo, protocol: storeProtocol,
                    awaitingRoom: Sys.kind(
                        of: root + "/" + path + "/" + StoreLayout.outbox + "/" + StoreLayout.creation)
                        == .file
                ).problems
        case .success(nil):
            warning(
                path + "/" + StoreLayout.conversationInfo,
                "missing: title and members are unknown until `chatdir sync` fetches them")
        case .failure(let failure):
            report(failure, at: path + "/" + StoreLayout.conversationInfo)
        }
        switch read(path + "/" + StoreLayout.positions) {
        case .success(let bytes?):
            report.problems +=
                PositionsFile.decode(
                    bytes, path: path + "/" + StoreLayout.positions, protocol: storeProtocol
                ).problems
        case .success(nil):
            break
        case .failure(let failure):
            report(failure, at: path + "/" + StoreLayout.positions)
        }
        let stored = checkSegments(path + "/" + StoreLayout.messages, segmentSize: segmentSize, protocol: storeProtocol)
        checkOutbox(path + "/" + StoreLayout.outbox, stored: stored)
    }

    /// Checks every segment; returns the client message IDs stored, with the file of each.
    /// An event ID, like a client ID, is stored once in a conversation.
    private mutating func checkSegments(_ path: String, segmentSize: Int, protocol storeProtocol: StoreProtocol)
        -> [ClientMessageID: String]
    {
        var ids: [ClientMessageID: String] = [:]
        var events: [EventID: String] = [:]
        let names = listPlain(path) ?? []
        if let newest = names.compactMap(SegmentRange.init(fileName:)).max(),
            case .success(let hint?) = read(path + "/" + StoreLayout.newestHint, limit: 4096),
            hint != Array((newest.fileName + "\n").utf8)
        {
            warning(
                path + "/" + StoreLayout.newestHint,
                "does not name the newest segment (\(newest.fileName)); readers list the directory instead, and the sync worker rewrites it when it starts"
            )
        }
        for name in names {
            let file = path + "/" + name
            if name.hasPrefix(".") {
                checkTemporary(file)
                continue
            }
            guard let range = SegmentRange(fileName: name) else {
                error(
                    file,
                    "not a segment file name; segments are named <first>-<last>.json with 10-digit numbers, like 0000000001-\(String(repeating: "0", count: max(0, 10 - String(segmentSize).count)) + String(segmentSize)).json"
                )
                continue
            }
            guard range.isAligned(size: segmentSize) else {
                let expected = SegmentRange(containing: range.first, size: segmentSize)
                error(
                    file,
                    "the range \(range) does not match this store's segmentSize \(segmentSize) (expected \(expected.fileName)); move its messages into the right files"
                )
                continue
            }
            let bytes: [UInt8]
            switch read(
                file, limit: StoreFiles.maxSegmentBytes(segmentSize: segmentSize, protocol: storeProtocol),
                what: StoreFiles.segment(of: segmentSize))
            {
            case .success(let read?): bytes = read
            case .success(nil): continue // removed meanwhile
            case .failure(let failure):
                report(failure, at: file)
                continue
            }
            report.segments += 1
            let decoded = SegmentFile.decode(bytes, path: file, range: range, protocol: storeProtocol)
            report.problems += decoded.problems
            report.messages += decoded.messages.count
            progress(report.messages)
            for (message, line) in zip(decoded.messages, decoded.lines) {
                if let other = ids[message.clientMessageID] {
                    report.problems.append(.duplicateClientID(message, path: file, line: line, otherPath: other))
                } else {
                    ids[message.clientMessageID] = file
                }
                guard let eventID = message.eventID else { continue }
                if let other = events[eventID] {
                    report.problems.append(
                        .duplicateEventID(message, eventID, path: file, line: line, otherPath: other))
                } else {
                    events[eventID] = file
                }
            }
        }
        return ids
    }

    private mutating func checkOutbox(_ path: String, stored: [ClientMessageID: String]) {
        var seen: [ClientMessageID: String] = [:]
        for name in listPlain(path) ?? [] {
            let file = path + "/" + name
            if name.hasPrefix(".") {
                checkTemporary(file)
                continue
            }
            let bytes: [UInt8]
            switch read(file) {
            case .success(let read?): bytes = read
            case .success(nil): continue // delivered meanwhile
            case .failure(let failure):
                report(failure, at: file)
                continue
            }
            if name == StoreLayout.readPosition {
                report.problems += OutboxFile.decodeReadPosition(bytes, path: file).problems
                continue
            }
            if name == StoreLayout.creation {
                report.problems += QueuedCreation.decode(bytes, path: file).problems
                continue
            }
            report.outboxFiles += 1
            let decoded = OutboxFile.decode(bytes, name: name, path: file)
            report.problems += decoded.problems
            guard let entry = decoded.entry else { continue }
            if let other = seen[entry.clientMessageID] {
                error(
                    file,
                    "client message ID \(entry.clientMessageID) is queued twice (also \(other)); remove one of the two files"
                )
            }
            seen[entry.clientMessageID] = file
            if let segment = stored[entry.clientMessageID] {
                warning(
                    file, "already accepted (it is in \(segment)); the sync worker removes this file on its next start")
            }
        }
    }

    /// One warning for every file and directory others may use: chatdir makes them 0600 and
    /// 0700, but git keeps neither, so a clone, pull or merge leaves them as the umask says.
    private mutating func checkModes() {
        let wider = StoreGitFiles.widerModes(in: root)
        guard let first = wider.first else { return }
        let mode = String(first.mode, radix: 8)
        let more =
            wider.count > 1 ? " (and \(wider.count - 1) more path\(wider.count == 2 ? "" : "s") of this store)" : ""
        warning(
            first.path,
            "mode \(String(repeating: "0", count: max(0, 4 - mode.count)) + mode) lets other users of this machine read it\(more); "
                + "chatdir makes files 0600 and directories 0700, which git does not keep: run `chatdir check --fix-modes` on this store, and `chatdir git-setup` once so git's hooks restore them after every pull"
        )
    }

    private mutating func checkTemporary(_ file: String) {
        guard file.hasSuffix(".tmp") else { return }
        warning(
            file,
            "a temporary file, probably left by a writer that was killed; the sync worker removes it (deleting it by hand is safe when no chatdir runs)"
        )
    }
}
