import ChatDomain
import ChatTestSupport
import Foundation
import Testing

@testable import ChatStore

/// `StoreMerge`: the rules git's merge driver applies, on bytes, without git.
@Suite struct StoreMergeTests {
    let segmentPath = "conversations/c1/messages/0000000001-0000000010.json"
    let positionsPath = "conversations/c1/positions.json"
    let infoPath = "conversations/c1/conversation.json"

    func segment(_ sequences: [Int]) -> [UInt8] {
        SegmentFile.encode(sequences.map { message($0) })
    }

    @Test(
        "the path says what a file is, wherever the store sits in the repository",
        arguments: [
            (
                "conversations/c1/messages/0000000001-0000000010.json",
                StoreMerge.Kind.segment(SegmentRange(containing: 1, size: 10))
            ),
            ("chats/conversations/c1/positions.json", .positions),
            ("a/b/conversations/dinner/conversation.json", .conversationInfo),
        ] as [(String, StoreMerge.Kind)])
    func kinds(path: String, kind: StoreMerge.Kind) {
        #expect(StoreMerge.kind(ofPath: path) == kind)
    }

    @Test(
        "a path that is no shared store file is refused, not merged",
        arguments: [
            "chatdir.json", "conversations/c1/outbox/read.json", "conversations/../positions.json",
            "conversations/c1/messages/notes.json", "README.md", "positions.json",
        ])
    func notStoreFiles(path: String) {
        #expect(StoreMerge.kind(ofPath: path) == nil)
        #expect(throws: StoreMerge.Failure.notAStoreFile(path: path)) {
            try StoreMerge.merge(base: [], ours: [], theirs: [], path: path)
        }
    }

    @Test("segments merge to the union by sequence, in the bytes a device holding both would write")
    func segmentUnion() throws {
        let outcome = try StoreMerge.merge(
            base: segment([1, 2]), ours: segment([1, 2, 3, 5]), theirs: segment([1, 2, 4, 5, 6]), path: segmentPath)
        #expect(outcome.isClean)
        #expect(outcome.bytes == segment([1, 2, 3, 4, 5, 6]))
        // The same either way round, and with no base at all (both sides added the file).
        #expect(
            try StoreMerge.merge(
                base: [], ours: segment([1, 2, 4, 5, 6]), theirs: segment([1, 2, 3, 5]), path: segmentPath
            ).bytes == outcome.bytes)
    }

    @Test("one sequence with two different records is a conflict between git's markers, which check explains")
    func segmentConflict() throws {
        let ours = SegmentFile.encode([message(1), message(2, text: "hand-edited here")])
        let theirs = SegmentFile.encode([message(1), message(2), message(3)])
        let outcome = try StoreMerge.merge(base: segment([1]), ours: ours, theirs: theirs, path: segmentPath)
        #expect(outcome.conflicts.count == 1)
        #expect(outcome.conflicts.first?.hasPrefix("sequence 2 holds") == true)
        let text = String(decoding: outcome.bytes, as: UTF8.self)
        #expect(text.contains("<<<<<<< ours\n") && text.contains("\n=======\n") && text.contains(">>>>>>> theirs\n"))
        #expect(text.contains("hand-edited here") && text.contains("message 2"))
        let decoded = SegmentFile.decode(outcome.bytes, path: segmentPath, range: SegmentRange(containing: 1, size: 10))
        #expect(decoded.problems == [GitConflictMarkers.problem(path: segmentPath, line: 3)])
        #expect(
            decoded.problems.first?.message
                == "unresolved git merge conflict in \(segmentPath); keep one side of every conflict with `chatdir merge-file --keep ours \(segmentPath)` (or --keep theirs; either keeps every record no conflict involves), then `git add \(segmentPath)`"
        )
        // Keeping one side (markers and the other line removed) leaves a sound segment.
        let kept = text.split(separator: "\n", omittingEmptySubsequences: false)
            .filter {
                !$0.hasPrefix("<<<<<<<") && !$0.hasPrefix(">>>>>>>") && $0 != "=======" && !$0.contains("message 2")
            }
            .joined(separator: "\n")
        let resolved = SegmentFile.decode(
            Array(kept.utf8), path: segmentPath, range: SegmentRange(containing: 1, size: 10))
        #expect(resolved.problems.isEmpty, "\(resolved.problems)")
        #expect(resolved.messages.map(\.text) == ["message 1", "hand-edited here", "message 3"])
    }

    @Test("one client message ID at two sequences is a conflict, never stored twice")
    func sameIDTwoSequences() throws {
        var moved = message(3)
        moved.sequence = 4
        let outcome = try StoreMerge.merge(
            base: [], ours: SegmentFile.encode([message(1), message(3)]),
            theirs: SegmentFile.encode([message(1), moved]), path: segmentPath)
        #expect(!outcome.isClean)
        #expect(outcome.conflicts.first?.contains("is at sequence 3 and 4 on the two sides") == true)
    }

    // MARK: - Resolving a conflict by hand

    /// `record` moved to `sequence`: the same client message ID somewhere else.
    func placed(_ record: Message, at sequence: Int) -> Message {
        var moved = record
        moved.sequence = sequence
        return moved
    }

    /// The conflicted file's lines in short: a record as its sequence (with its comma), markers
    /// and brackets as they are.
    func layout(_ outcome: StoreMerge.Outcome) -> [String] {
        String(decoding: outcome.bytes, as: UTF8.self).split(separator: "\n").map { line in
            guard let match = line.firstMatch(of: /"sequence":(\d+),/) else { return String(line) }
            return String(match.1) + (line.hasSuffix(",") ? "," : "")
        }
    }

    /// Every way a person resolves `outcome` as docs/FORMAT.md says (in each hunk, delete the
    /// markers and keep ours or keep theirs), by the choices made: the records each leaves.
    /// Records an issue unless the file has `hunks` hunks and every resolution is a segment
    /// `decode` reports no problem at all in, warning or error.
    func everyResolution(of outcome: StoreMerge.Outcome, hunks: Int, sourceLocation: SourceLocation = #_sourceLocation)
        -> [[KeptSide]: [Message]]
    {
        #expect(!outcome.isClean, sourceLocation: sourceLocation)
        #expect(conflictHunkCount(outcome.bytes) == hunks, "\(layout(outcome))", sourceLocation: sourceLocation)
        var resolutions: [[KeptSide]: [Message]] = [:]
        for choice in everyChoice(ofHunks: hunks) {
            guard let resolved = resolvingConflicts(outcome.bytes, keeping: choice) else {
                Issue.record(
                    "the markers are not \(hunks) whole hunks: \(layout(outcome))", sourceLocation: sourceLocation)
                continue
            }
            let decoded = SegmentFile.decode(resolved, path: segmentPath, range: SegmentRange(containing: 1, size: 10))
            #expect(decoded.problems.isEmpty, "keeping \(choice): \(decoded.problems)", sourceLocation: sourceLocation)
            resolutions[choice] = decoded.messages
        }
        return resolutions
    }

    @Test(
        "one client ID at sequence 3 on ours and 4 on theirs: one hunk around both, and keeping either side leaves a sound segment"
    )
    func idAtThreeAndFour() throws {
        let moved = message(3)
        let outcome = try StoreMerge.merge(
            base: segment([1, 2]), ours: segment([1, 2, 3]),
            theirs: SegmentFile.encode([message(1), message(2), placed(moved, at: 4)]), path: segmentPath)
        #expect(
            outcome.conflicts == ["client message ID \(moved.clientMessageID) is at sequence 3 and 4 on the two sides"])
        func line(_ message: Message) -> String {
            var writer = JSONWriter()
            SegmentFile.writeRecord(message, into: &writer)
            return String(decoding: writer.bytes, as: UTF8.self)
        }
        #expect(
            String(decoding: outcome.bytes, as: UTF8.self) == """
                [
                \(line(message(1))),
                \(line(message(2))),
                <<<<<<< ours
                \(line(moved))
                =======
                \(line(placed(moved, at: 4)))
                >>>>>>> theirs
                ]

                """)
        let resolutions = everyResolution(of: outcome, hunks: 1)
        #expect(resolutions[[.ours]] == [message(1), message(2), moved])
        #expect(resolutions[[.theirs]] == [message(1), message(2), placed(moved, at: 4)])
    }

    @Test(
        "an ID conflict with records between its sequences: the hunk spans them all, and a record no conflict involves is on both sides"
    )
    func idConflictAroundCommonRecords() throws {
        let moved = message(20, text: "moved")
        let ours = SegmentFile.encode([message(1), placed(moved, at: 2), message(3)])
        let theirs = SegmentFile.encode([message(1), message(3), message(4), placed(moved, at: 5), message(6)])
        let outcome = try StoreMerge.merge(base: segment([1, 3]), ours: ours, theirs: theirs, path: segmentPath)
        #expect(
            outcome.conflicts == ["client message ID \(moved.clientMessageID) is at sequence 2 and 5 on the two sides"])
        // 3 is on both sides, 4 only on theirs: neither is in conflict, so either choice keeps them.
        #expect(
            layout(outcome) == [
                "[", "1,", "<<<<<<< ours", "2,", "3,", "4,", "=======", "3,", "4,", "5,", ">>>>>>> theirs", "6", "]",
            ])
        let resolutions = everyResolution(of: outcome, hunks: 1)
        #expect(resolutions[[.ours]] == [message(1), placed(moved, at: 2), message(3), message(4), message(6)])
        #expect(resolutions[[.theirs]] == [message(1), message(3), message(4), placed(moved, at: 5), message(6)])
    }

    @Test("two records at the file's last sequence: each side's record ends the file without a comma")
    func conflictAtTheEnd() throws {
        let edited = message(3, text: "edited by hand")
        let outcome = try StoreMerge.merge(
            base: segment([1, 2]), ours: SegmentFile.encode([message(1), message(2), edited]),
            theirs: segment([1, 2, 3]), path: segmentPath)
        #expect(outcome.conflicts.count == 1)
        #expect(layout(outcome) == ["[", "1,", "2,", "<<<<<<< ours", "3", "=======", "3", ">>>>>>> theirs", "]"])
        let resolutions = everyResolution(of: outcome, hunks: 1)
        #expect(resolutions[[.ours]] == [message(1), message(2), edited])
        #expect(resolutions[[.theirs]] == [message(1), message(2), message(3)])
    }

    @Test(
        "a conflict at the end whose sides hold different numbers of records: the last record of either ends the file")
    func unevenConflictAtTheEnd() throws {
        // Sequence 3 holds two records, and ours has theirs's record again at 4.
        let moved = message(20, text: "moved")
        let outcome = try StoreMerge.merge(
            base: segment([1, 2]),
            ours: SegmentFile.encode([message(1), message(2), message(3), placed(moved, at: 4)]),
            theirs: SegmentFile.encode([message(1), message(2), placed(moved, at: 3)]), path: segmentPath)
        #expect(outcome.conflicts.count == 2)
        #expect(layout(outcome) == ["[", "1,", "2,", "<<<<<<< ours", "3,", "4", "=======", "3", ">>>>>>> theirs", "]"])
        let resolutions = everyResolution(of: outcome, hunks: 1)
        #expect(resolutions[[.ours]] == [message(1), message(2), message(3), placed(moved, at: 4)])
        #expect(resolutions[[.theirs]] == [message(1), message(2), placed(moved, at: 3)])
    }

    @Test("two conflicts far apart are two hunks, each resolved on its own")
    func twoHunks() throws {
        let edited = message(2, text: "edited by hand")
        let moved = message(20, text: "moved")
        let middle = (3...8).map { message($0) }
        let ours = SegmentFile.encode([message(1), edited] + middle + [placed(moved, at: 9)])
        let theirs = SegmentFile.encode([message(1), message(2)] + middle + [placed(moved, at: 10)])
        let outcome = try StoreMerge.merge(base: segment([1, 2]), ours: ours, theirs: theirs, path: segmentPath)
        #expect(outcome.conflicts.count == 2)
        #expect(
            layout(outcome) == [
                "[", "1,", "<<<<<<< ours", "2,", "=======", "2,", ">>>>>>> theirs", "3,", "4,", "5,", "6,", "7,", "8,",
                "<<<<<<< ours", "9", "=======", "10", ">>>>>>> theirs", "]",
            ])
        let resolutions = everyResolution(of: outcome, hunks: 2)
        #expect(resolutions.count == 4)
        #expect(resolutions[[.ours, .ours]] == [message(1), edited] + middle + [placed(moved, at: 9)])
        #expect(resolutions[[.ours, .theirs]] == [message(1), edited] + middle + [placed(moved, at: 10)])
        #expect(resolutions[[.theirs, .ours]] == [message(1), message(2)] + middle + [placed(moved, at: 9)])
        #expect(resolutions[[.theirs, .theirs]] == [message(1), message(2)] + middle + [placed(moved, at: 10)])
    }

    @Test(
        "random sides, moved, edited and added on each: every resolution of every conflict is sound and keeps what its sides chose"
    )
    func randomResolutions() throws {
        var conflictsSeen = 0
        for seed in 0..<400 {
            var random = SplitMix64(seed: UInt64(seed))
            // A shared start, then on each side: records edited, and records of a pool both
            // sides know placed at a free sequence of that side's choosing, or left out.
            let base = (0..<Int.random(in: 0...5, using: &random)).map { message($0 + 1) }
            let pool = (0..<Int.random(in: 1...4, using: &random)).map { message(20 + $0, text: "pooled \($0)") }
            func side() -> [Message] {
                var records = base.map {
                    Int.random(in: 0..<4, using: &random) == 0 ? message($0.sequence, text: "edited \(seed)") : $0
                }
                for record in pool where Bool.random(using: &random) {
                    let free = (1...10).filter { sequence in !records.contains { $0.sequence == sequence } }
                    if let sequence = free.randomElement(using: &random) {
                        records.append(placed(record, at: sequence))
                    }
                }
                return records.sorted { $0.sequence < $1.sequence }
            }
            let (ours, theirs) = (side(), side())
            let outcome = try StoreMerge.merge(
                base: SegmentFile.encode(base), ours: SegmentFile.encode(ours), theirs: SegmentFile.encode(theirs),
                path: segmentPath)
            if outcome.isClean { continue }
            conflictsSeen += 1
            let hunks = conflictHunkCount(outcome.bytes)
            let resolutions = everyResolution(of: outcome, hunks: hunks)
            #expect(resolutions.count == 1 << hunks)
            // Keeping one side everywhere keeps every record of it; no choice invents a record.
            #expect(Set(ours).isSubset(of: resolutions[Array(repeating: .ours, count: hunks)] ?? []), "seed \(seed)")
            #expect(
                Set(theirs).isSubset(of: resolutions[Array(repeating: .theirs, count: hunks)] ?? []), "seed \(seed)")
            for (choice, records) in resolutions {
                #expect(Set(records).isSubset(of: Set(ours + theirs)), "seed \(seed), keeping \(choice)")
            }
        }
        #expect(conflictsSeen > 100, "the sides conflicted only \(conflictsSeen) times")
    }

    @Test(
        "a damaged side is refused with the file, the side and the line",
        arguments: [
            ("[\n{\"clientMessageId\":1}\n]\n", "ours is damaged: line 2:"),
            ("", "ours is damaged: line 1: the file is empty"),
            ("[\n{\"x\":", "ours is damaged: line"),
            ("\u{FF}\u{FE}garbage", "ours is damaged: line 1: not valid JSON"),
        ])
    func damagedSegment(ours: String, expected: String) throws {
        do {
            _ = try StoreMerge.merge(base: [], ours: Array(ours.utf8), theirs: segment([1]), path: segmentPath)
            Issue.record("merged a damaged side")
        } catch {
            #expect("\(error)".hasPrefix("cannot merge \(segmentPath): \(expected)"), "\(error)")
        }
    }

    @Test("a record whose sequence does not belong in the file's range is refused")
    func wrongRange() throws {
        #expect(throws: StoreMerge.Failure.self) {
            try StoreMerge.merge(base: [], ours: segment([1]), theirs: segment([11]), path: segmentPath)
        }
    }

    @Test("positions merge to the higher of each number per member, delivered never below read")
    func positions() throws {
        let ours = PositionsFile.encode(
            Positions([alice: .init(deliveredUpTo: 9, readUpTo: 7), bob: .init(deliveredUpTo: 3, readUpTo: 3)]))
        let theirs = PositionsFile.encode(
            Positions([alice: .init(deliveredUpTo: 8, readUpTo: 8), carol: .init(deliveredUpTo: 2, readUpTo: 0)]))
        let outcome = try StoreMerge.merge(base: [], ours: ours, theirs: theirs, path: positionsPath)
        #expect(outcome.isClean)
        #expect(
            String(decoding: outcome.bytes, as: UTF8.self) == """
                {
                "alice":{"deliveredUpTo":9,"readUpTo":8},
                "bob":{"deliveredUpTo":3,"readUpTo":3},
                "carol":{"deliveredUpTo":2,"readUpTo":0}
                }

                """)
        #expect(throws: StoreMerge.Failure.self) {
            try StoreMerge.merge(
                base: [], ours: ours, theirs: Array("{\"alice\":{\"deliveredUpTo\":-1,\"readUpTo\":0}}\n".utf8),
                path: positionsPath)
        }
    }

    @Test("conversation details take the side whose members include the other's")
    func conversationMembers() throws {
        let two = ConversationInfo(title: "Dinner", members: [alice, bob]).encode()
        let three = ConversationInfo(title: "Friday dinner", members: [alice, bob, carol]).encode()
        #expect(
            try StoreMerge.merge(base: [], ours: two, theirs: three, path: infoPath)
                == .init(bytes: three, conflicts: []))
        #expect(
            try StoreMerge.merge(base: [], ours: three, theirs: two, path: infoPath)
                == .init(bytes: three, conflicts: []))
        let other = ConversationInfo(title: "Dinner", members: [alice, carol]).encode()
        let conflict = try StoreMerge.merge(base: [], ours: two, theirs: other, path: infoPath)
        #expect(conflict.conflicts.first?.hasPrefix("neither side's members include the other's") == true)
        #expect(
            ConversationInfo.decode(conflict.bytes, path: infoPath).problems == [
                GitConflictMarkers.problem(path: infoPath, line: 1)
            ])
    }

    @Test("equal members, two titles: the one that changed since the base, else a conflict")
    func conversationTitles() throws {
        let base = ConversationInfo(title: "Dinner", members: [alice, bob]).encode()
        let renamed = ConversationInfo(title: "Friday dinner", members: [bob, alice]).encode()
        #expect(try StoreMerge.merge(base: base, ours: base, theirs: renamed, path: infoPath).bytes == renamed)
        #expect(try StoreMerge.merge(base: base, ours: renamed, theirs: base, path: infoPath).bytes == renamed)
        let other = ConversationInfo(title: "Supper", members: [alice, bob]).encode()
        #expect(try !StoreMerge.merge(base: base, ours: renamed, theirs: other, path: infoPath).isClean)
    }

    @Test("mergeFiles replaces our file with the result, as git expects of a driver")
    func files() throws {
        let directory = try TemporaryDirectory()
        let (base, ours, theirs) = (directory.file("base"), directory.file("ours"), directory.file("theirs"))
        try Data(segment([1])).write(to: URL(fileURLWithPath: base))
        try Data(segment([1, 2])).write(to: URL(fileURLWithPath: ours))
        try Data(segment([1, 3])).write(to: URL(fileURLWithPath: theirs))
        let outcome = try StoreMerge.mergeFiles(base: base, ours: ours, theirs: theirs, path: segmentPath)
        #expect(outcome.isClean)
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: ours))) == segment([1, 2, 3]))
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: theirs))) == segment([1, 3]))
    }
}

/// `check` (and every reader) names a file with git's conflict markers as one unresolved merge.
@Suite struct GitConflictMarkersTests {
    @Test(
        "marker lines are found, and only marker lines",
        arguments: [
            ("{\n<<<<<<< HEAD\n\"a\":1\n=======\n\"a\":2\n>>>>>>> branch\n}\n", 2),
            ("[\n=======\n]\n", 2),
            ("[\n||||||| base\n]\n", 2),
            ("<<<<<<<\n", 1),
            ("[\n{\"text\":\"<<<<<<< not at the start\"}\n]\n", nil),
            ("[\n<<<<<<<<\n]\n", nil),
            ("[\n========\n]\n", nil),
            ("[\n<<<<<<x\n]\n", nil),
        ] as [(String, Int?)])
    func markers(text: String, line: Int?) {
        #expect(GitConflictMarkers.firstLine(in: Array(text.utf8)) == line)
    }

    @Test("check reports a conflicted positions.json, manifest and segment each as one error")
    func checkSaysConflict() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let conversation = store.root + "/conversations/c1"
        try FileManager.default.createDirectory(atPath: conversation + "/messages", withIntermediateDirectories: true)
        let conflicted =
            "{\n<<<<<<< ours\n\"alice\":{\"deliveredUpTo\":3,\"readUpTo\":3}\n=======\n\"alice\":{\"deliveredUpTo\":4,\"readUpTo\":3}\n>>>>>>> theirs\n}\n"
        try Data(conflicted.utf8).write(to: URL(fileURLWithPath: conversation + "/positions.json"))
        let segment =
            "[\n" + String(decoding: SegmentFile.encode([message(1)]).dropFirst(2).dropLast(3), as: UTF8.self)
            + ",\n<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\n]\n"
        try Data(segment.utf8).write(to: URL(fileURLWithPath: conversation + "/messages/0000000001-0000000010.json"))
        let report = StoreChecker.check(root: store.root)
        #expect(
            report.errors.map(\.description) == [
                "conversations/c1/messages/0000000001-0000000010.json:3: unresolved git merge conflict in conversations/c1/messages/0000000001-0000000010.json; keep one side of every conflict with `chatdir merge-file --keep ours conversations/c1/messages/0000000001-0000000010.json` (or --keep theirs; either keeps every record no conflict involves), then `git add conversations/c1/messages/0000000001-0000000010.json`",
                "conversations/c1/positions.json:2: unresolved git merge conflict in conversations/c1/positions.json; keep one side of every conflict with `chatdir merge-file --keep ours conversations/c1/positions.json` (or --keep theirs; either keeps every record no conflict involves), then `git add conversations/c1/positions.json`",
            ])
        let manifest = store.root + "/chatdir.json"
        let original = try String(contentsOfFile: manifest, encoding: .utf8)
        try Data(("<<<<<<< ours\n" + original + "=======\n" + original + ">>>>>>> theirs\n").utf8).write(
            to: URL(fileURLWithPath: manifest))
        #expect(
            StoreChecker.check(root: store.root).errors.map(\.message) == [
                "unresolved git merge conflict in chatdir.json; chatdir does not merge this file: edit it to keep one side (delete the marker lines and the other side's lines), then `git add chatdir.json`"
            ])
    }
}

/// `.gitignore`, `.gitattributes` and modes, as `init` and `git-setup` leave them.
@Suite struct StoreGitFilesTests {
    @Test("install writes both files once; a second run changes nothing; a user's own lines stay")
    func install() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        #expect(try StoreGitFiles.install(in: store.root) == [".gitignore", ".gitattributes"])
        let first = try filesUnder(store.root)
        #expect(try StoreGitFiles.install(in: store.root) == [])
        #expect(try filesUnder(store.root) == first)
        try Data("notes.txt\n.*\n".utf8).write(to: URL(fileURLWithPath: store.root + "/.gitignore"))
        #expect(try StoreGitFiles.install(in: store.root) == [".gitignore"])
        let ignore = try String(contentsOfFile: store.root + "/.gitignore", encoding: .utf8)
        #expect(ignore == "notes.txt\n.*\n# Added by chatdir git-setup:\n!.gitignore\n!.gitattributes\noutbox/\n")
        #expect(try StoreGitFiles.install(in: store.root) == [])
    }

    @Test("restoreModes gives 0600 and 0700 back and leaves .git alone")
    func modes() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let git = store.root + "/.git"
        try FileManager.default.createDirectory(atPath: git, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: git)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: store.root + "/chatdir.json")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: store.root + "/conversations")
        #expect(try StoreGitFiles.restoreModes(in: store.root) == ["chatdir.json", "conversations"])
        func mode(_ path: String) throws -> Int {
            try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        }
        #expect(try mode(store.root + "/chatdir.json") == 0o600)
        #expect(try mode(store.root + "/conversations") == 0o700)
        #expect(try mode(git) == 0o755)
        #expect(try StoreGitFiles.restoreModes(in: store.root) == [])
    }
}
