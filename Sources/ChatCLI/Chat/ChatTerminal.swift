import ChatSystem

/// The chat screen's terminal: raw input (``TerminalDevice/enterChatMode(_:)``), the alternate
/// screen, bracketed paste, focus reporting and (unless turned off) SGR mouse reports for the
/// wheel; keys read on a thread of their own and decoded into ``Key``s; frames drawn in one
/// write each, with the cursor left where the input line wants it.
final class ChatTerminal: @unchecked Sendable {
    // Set in `enter`, read in `restore`; both run on the command's one task.
    private var saved: TerminalDevice.Settings?
    private var entered = false
    private let mouse: Bool
    private let input = StandardIO.input
    private let output = StandardIO.output

    init(mouse: Bool) {
        self.mouse = mouse
    }

    /// Modes turned on by `enter` and off by `restore`: bracketed paste, focus in/out reports,
    /// and mouse button reports in SGR form (the wheel comes as buttons 64 and 65).
    private var modes: [Int] { [2004, 1004] + (mouse ? [1000, 1006] : []) }

    func enter() {
        guard !entered else { return }
        saved = TerminalDevice.enterChatMode(input)
        entered = true
        let on = modes.map { "\u{1B}[?\($0)h" }.joined()
        Output.write(output, "\u{1B}[?1049h\u{1B}[H\u{1B}[2J" + on)
    }

    /// Main screen back, every mode off, the cursor shown, the input settings as they were.
    func restore() {
        guard entered else { return }
        entered = false
        let off = modes.reversed().map { "\u{1B}[?\($0)l" }.joined()
        Output.write(output, off + "\u{1B}[?25h\u{1B}[?1049l")
        saved?.restore()
    }

    /// Draws `lines` from the top-left corner in one write, then puts the cursor at `cursor`
    /// (0-based row and column) and shows it, or hides it when there is none.
    func draw(_ lines: [String], cursor: (row: Int, column: Int)?) {
        var frame = "\u{1B}[?25l\u{1B}[H"
        for (index, line) in lines.enumerated() {
            frame += line + "\u{1B}[K"
            if index < lines.count - 1 { frame += "\r\n" }
        }
        frame += "\u{1B}[J"
        if let cursor { frame += "\u{1B}[\(cursor.row + 1);\(cursor.column + 1)H\u{1B}[?25h" }
        Output.write(output, frame)
    }

    /// Keys as they are typed, decoded on a dedicated thread that blocks in `poll(2)` on
    /// standard input; a lone Escape is told from the start of a sequence by 50 ms of quiet.
    /// The stream ends when standard input does (the terminal hung up). Cancelling the
    /// stream's consumer stops the thread through a wake pipe. The thread is detached, never
    /// joined: the stream's termination handler runs under the stream's own lock, which the
    /// thread needs to finish the stream (joining it there deadlocked Ctrl-C).
    static func keys() throws(SystemError) -> AsyncStream<Key> {
        let (stream, continuation) = AsyncStream.makeStream(of: Key.self)
        let wake = try WakePipe()
        try SystemThread.detach {
            var decoder = KeyDecoder()
            var buffer = [UInt8](repeating: 0, count: 4096)
            var pending = false
            loop: while true {
                let ready: [PollResult]
                do {
                    ready = try Poll.wait([StandardIO.input, wake.readEnd], timeoutMilliseconds: pending ? 50 : -1)
                } catch {
                    break loop
                }
                if ready[1].readyToRead { break loop }
                if !ready[0].readyToRead {
                    for key in decoder.flush() { continuation.yield(key) }
                    pending = false
                    continue
                }
                guard let count = try? StandardIO.readSome(into: &buffer), count > 0 else { break loop }
                for key in decoder.feed(Array(buffer[0..<count])) { continuation.yield(key) }
                // Whatever the bytes ended with, one quiet 50 ms settles it (a flush with
                // nothing pending yields nothing).
                pending = true
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in wake.signal() }
        return stream
    }
}
