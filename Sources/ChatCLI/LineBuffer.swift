import ChatSystem

/// Lines for standard output gathered into few `write(2)`s: a short result (`view`'s 50 rows,
/// `list`) leaves in one at ``flush()``, a long one (every hit of `search`) in pieces of about
/// 64 KiB, so a pipe's reader still gets rows while the command works.
///
/// Errors are ``Output/write(_:_:)``'s: a reader that left (EPIPE) ends nothing more, anything
/// else is remembered for the exit code. SIGPIPE is untouched, so a reader that closed the pipe
/// before the write still ends chatdir with it, as one write per line did.
struct LineBuffer {
    /// The size at which ``append(_:)`` writes what it has gathered.
    static let flushSize = 1 << 16

    private var pending: [UInt8] = []

    /// Adds `line` and a newline; writes everything gathered once it reaches ``flushSize``.
    mutating func append(_ line: String) {
        appendLine { $0.append(contentsOf: line.utf8) }
    }

    /// Adds the line `body` writes as bytes (without its newline), then a newline; writes
    /// everything gathered once it reaches ``flushSize``.
    mutating func appendLine(_ body: (inout [UInt8]) -> Void) {
        body(&pending)
        pending.append(0x0A)
        if pending.count >= Self.flushSize { flush() }
    }

    /// Writes what is gathered, if anything, in one call of ``Output/write(_:bytes:)``.
    mutating func flush() {
        guard !pending.isEmpty else { return }
        Output.write(StandardIO.output, bytes: pending)
        pending.removeAll(keepingCapacity: true)
    }
}
