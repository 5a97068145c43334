import ChatDomain
import ChatSystem

/// Resolving a file the merge driver left with conflict markers, one side per hunk: what
/// `chatdir merge-file --keep ours|theirs FILE` does.
///
/// Unlike `git checkout --ours FILE` (one side's whole file as it was before the merge, which
/// drops every record only the other side had), keeping a side of each hunk keeps every record
/// no conflict involves: the driver writes those on both sides of a hunk and outside the hunks
/// (``conflictedSegment(_:hunks:)``). Only the other side's records at the conflicting
/// sequences are left out, and git still holds them in the other side's commit.
extension StoreMerge {
    /// The side of every hunk that a resolution keeps.
    public enum KeptSide: String, Sendable, CaseIterable {
        case ours, theirs
    }

    /// What a resolution did: the bytes now in the file and how many hunks it resolved
    /// (0 when the file had no markers and was left as it was).
    public struct Resolution: Sendable, Hashable {
        public var bytes: [UInt8]
        public var hunks: Int
    }

    /// `bytes` (the store file at `path`) with the marker lines deleted and, in every hunk, the
    /// lines of the side not kept. The result is read back with the store's own decoder, so a
    /// file that would not be sound is refused, never written.
    public static func resolve(_ bytes: [UInt8], keeping side: KeptSide, path: String) throws(Failure) -> Resolution {
        guard let kind = Self.kind(ofPath: path) else { throw .notAStoreFile(path: path) }
        enum Place { case outside, ours, theirs }
        var place = Place.outside
        var hunks = 0
        var kept: [ArraySlice<UInt8>] = []
        var lineNumber = 0
        func refuse(_ reason: String) -> Failure {
            .unresolvable(StoreProblem(path: path, line: lineNumber, reason))
        }
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        for line in lines {
            lineNumber += 1
            guard GitConflictMarkers.isMarker(line), let marker = line.first else {
                switch place {
                case .outside: kept.append(line)
                case .ours: if side == .ours { kept.append(line) }
                case .theirs: if side == .theirs { kept.append(line) }
                }
                continue
            }
            switch (marker, place) {
            case (UInt8(ascii: "<"), .outside): place = .ours
            case (UInt8(ascii: "="), .ours): place = .theirs
            case (UInt8(ascii: ">"), .theirs):
                place = .outside
                hunks += 1
            default:
                throw refuse(
                    "a conflict marker out of order (chatdir writes <<<<<<< ours, =======, >>>>>>> theirs); resolve the file in an editor"
                )
            }
        }
        guard place == .outside else {
            throw refuse("the last conflict hunk is not closed by >>>>>>> theirs; resolve the file in an editor")
        }
        guard hunks > 0 else { return Resolution(bytes: bytes, hunks: 0) }
        let resolved = Array(kept.joined(separator: [0x0A]))
        let problem: StoreProblem?
        switch kind {
        case .segment(let range):
            problem =
                SegmentFile.decode(
                    resolved, path: path, range: range, reportLayout: false, protocol: segmentProtocol(bytes)
                ).firstError
        case .positions:
            problem = PositionsFile.decode(resolved, path: path, protocol: nil).problems.first { $0.severity == .error }
        case .conversationInfo:
            let decoded = ConversationInfo.decode(resolved, path: path, protocol: nil)
            problem =
                decoded.info == nil
                ? decoded.problems.first { $0.severity == .error } ?? StoreProblem(path: path, "not readable") : nil
        }
        if let problem { throw .unresolvable(problem) }
        return Resolution(bytes: resolved, hunks: hunks)
    }

    /// Resolves the conflicted store file `file` (named `path` in errors and to tell its kind)
    /// in place, atomically as every store write, keeping `side` of every hunk.
    public static func resolveFile(_ file: String, keeping side: KeptSide, path: String) throws(Failure) -> Resolution {
        let bytes: [UInt8]
        do { bytes = try Sys.readFile(file) } catch { throw .system(error) }
        let resolution = try resolve(bytes, keeping: side, path: path)
        guard resolution.hunks > 0 else { return resolution }
        let name = file.split(separator: "/").last.map(String.init) ?? file
        do { try DurableFile.write(resolution.bytes, to: name, in: DurableFile.parentPath(of: file)) } catch {
            throw .system(error)
        }
        return resolution
    }
}
