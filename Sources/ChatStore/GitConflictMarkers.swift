/// Finds the markers git leaves in a file it could not merge (`<<<<<<<`, `=======`,
/// `>>>>>>>`, and diff3's `|||||||`), so a conflicted store file is reported as one unresolved
/// merge instead of a column of JSON errors.
///
/// A marker line can never be part of valid JSON (no JSON string spans lines), so readers look
/// only after a file failed to parse: the happy path pays nothing.
public enum GitConflictMarkers {
    /// The 1-based line of the first conflict marker in `bytes`, or nil when there is none.
    public static func firstLine(in bytes: [UInt8]) -> Int? {
        var line = 1
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != 0x0A { end += 1 }
            if isMarker(bytes[start..<end]) { return line }
            line += 1
            start = end + 1
        }
        return nil
    }

    /// Whether one line (without its LF) is a marker: seven of `<`, `>` or `|` followed by the
    /// end of the line or a space (then a label), or exactly seven `=`.
    static func isMarker(_ line: ArraySlice<UInt8>) -> Bool {
        var content = line
        if content.last == 0x0D { content = content.dropLast() }
        guard content.count >= 7, let first = content.first else { return false }
        guard content.prefix(7).allSatisfy({ $0 == first }) else { return false }
        switch first {
        case UInt8(ascii: "="):
            return content.count == 7
        case UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "|"):
            return content.count == 7 || content[content.startIndex + 7] == UInt8(ascii: " ")
        default:
            return false
        }
    }

    /// The problem a reader and `check` report for a file with conflict markers.
    public static func problem(path: String, line: Int) -> StoreProblem {
        let advice =
            StoreMerge.kind(ofPath: path) == nil
            ? "chatdir does not merge this file: edit it to keep one side (delete the marker lines and the other side's lines), then `git add \(path)`"
            : resolveAdvice(path)
        return StoreProblem(path: path, line: line, "unresolved git merge conflict in \(path); \(advice)")
    }

    /// How to resolve the conflicted file `path` (a word the shell takes as is) without losing
    /// a record: keep one side of every hunk, which keeps every record no conflict involves.
    /// Never `git checkout --ours/--theirs`: that takes one side's whole file as it was before
    /// the merge and drops the records only the other side had.
    public static func resolveAdvice(_ path: String) -> String {
        "keep one side of every conflict with `chatdir merge-file --keep ours \(path)` (or --keep theirs; "
            + "either keeps every record no conflict involves), then `git add \(path)`"
    }

    /// `problems` unchanged when they hold no error or `bytes` has no marker; else the one
    /// conflict problem, which explains every error the markers caused.
    static func explain(_ problems: [StoreProblem], bytes: [UInt8], path: String) -> [StoreProblem] {
        guard problems.contains(where: { $0.severity == .error }), let line = firstLine(in: bytes) else {
            return problems
        }
        return [problem(path: path, line: line)]
    }
}
