import ChatSystem

/// A following screen on the terminal: its size, a quiet mode (no echo or line editing, so
/// keystrokes do not scribble over the screen; signals stay on so Ctrl-C still arrives), the
/// alternate screen, and signals delivered as a stream. The calls are ChatSystem's ``TerminalDevice``.
final class Terminal: @unchecked Sendable {
    // Set once in `enter`, read in `restore`; both run on the command's one task.
    private var saved: TerminalDevice.Settings?
    private var entered = false
    let fd: Int32 = 1

    /// Rows and columns of the terminal on `fd`; nil when it is not a terminal.
    static func size(of fd: Int32 = StandardIO.output) -> (rows: Int, columns: Int)? {
        TerminalDevice.size(of: fd)
    }

    /// Switches to the alternate screen with the cursor hidden and input not echoed.
    func enter() {
        guard !entered else { return }
        saved = TerminalDevice.enterQuietMode(StandardIO.input)
        entered = true
        Output.write(fd, "\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J")
    }

    /// Puts the terminal back as it was: main screen, cursor shown, echo and line editing on.
    func restore() {
        guard entered else { return }
        entered = false
        Output.write(fd, "\u{1B}[?25h\u{1B}[?1049l")
        saved?.restore()
    }

    /// Draws `lines` from the top-left corner, clearing what was there: one write, so the
    /// screen never shows half a frame.
    func draw(_ lines: [String]) {
        var frame = "\u{1B}[H"
        for (index, line) in lines.enumerated() {
            frame += line + "\u{1B}[K"
            if index < lines.count - 1 { frame += "\r\n" }
        }
        frame += "\u{1B}[J"
        Output.write(fd, frame)
    }

    /// Delivers SIGWINCH, SIGINT, SIGTERM and SIGHUP as a stream (their default actions are
    /// turned off while it runs), on a private serial queue rather than in a signal handler.
    static func signals(resize: Bool) -> AsyncStream<TerminalSignal> {
        let (stream, continuation) = AsyncStream.makeStream(of: TerminalSignal.self)
        let watch = SignalWatch((resize ? [.windowChanged] : []) + [.interrupt, .terminate, .hangUp]) { signal in
            continuation.yield(signal == .windowChanged ? .resize : .stop)
        }
        // The stream keeps the watch alive until it ends.
        continuation.onTermination = { _ in watch.cancel() }
        return stream
    }

    /// How many columns `line` takes, not counting SGR escape sequences: cells, so a wide
    /// character or an emoji counts two and a combining mark none (``TerminalCells``).
    static func visibleWidth(_ line: String) -> Int {
        TerminalCells.width(line)
    }

    /// `line` cut to `width` visible columns, keeping SGR escape sequences (and closing them when
    /// cut). A wide character that would straddle the last column is left out and its place
    /// padded with a space, so the line takes exactly `width` columns and never half a character.
    static func fit(_ line: String, width: Int) -> String {
        var result = ""
        var visible = 0
        var inEscape = false
        var styled = false
        for character in line {
            if inEscape {
                result.append(character)
                if character.isLetter { inEscape = false }
                continue
            }
            if character == "\u{1B}" {
                inEscape = true
                styled = true
                result.append(character)
                continue
            }
            let cells = TerminalCells.width(character)
            if visible + cells > width || (visible >= width && cells == 0) {
                if visible < width { result += String(repeating: " ", count: width - visible) }
                if styled { result += "\u{1B}[0m" }
                return result
            }
            result.append(character)
            visible += cells
        }
        return result
    }
}
