import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// What the terminal or the system tells a following screen.
enum TerminalSignal: Sendable {
    /// SIGWINCH: the window changed size; redraw.
    case resize
    /// SIGINT (Ctrl-C), SIGTERM or SIGHUP: restore the terminal and exit 0.
    case stop
}

/// The CLI's only use of terminal syscalls: size (`ioctl TIOCGWINSZ`), a quiet mode (`termios`
/// without echo or line editing, so keystrokes do not scribble over the screen; signals stay on
/// so Ctrl-C still arrives), the alternate screen, and signals delivered as a stream.
final class Terminal: @unchecked Sendable {
    // Set once in `enter`, read in `restore`; both run on the command's one task.
    private var saved = termios()
    private var entered = false
    let fd: Int32 = 1

    /// Rows and columns of the terminal on `fd`; nil when it is not a terminal.
    static func size(of fd: Int32 = 1) -> (rows: Int, columns: Int)? {
        var window = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &window) == 0, window.ws_row > 0, window.ws_col > 0 else { return nil }
        return (Int(window.ws_row), Int(window.ws_col))
    }

    /// Switches to the alternate screen with the cursor hidden and input not echoed.
    func enter() {
        guard !entered else { return }
        if tcgetattr(0, &saved) == 0 {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO | ICANON)
            _ = tcsetattr(0, TCSANOW, &quiet)
        }
        entered = true
        Output.write(fd, "\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J")
    }

    /// Puts the terminal back as it was: main screen, cursor shown, echo and line editing on.
    func restore() {
        guard entered else { return }
        entered = false
        Output.write(fd, "\u{1B}[?25h\u{1B}[?1049l")
        _ = tcsetattr(0, TCSANOW, &saved)
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
        let queue = DispatchQueue(label: "chatdir.signals")
        var sources: [any DispatchSourceSignal] = []
        let wanted: [(Int32, TerminalSignal)] = (resize ? [(SIGWINCH, .resize)] : []) + [(SIGINT, .stop), (SIGTERM, .stop), (SIGHUP, .stop)]
        for (number, event) in wanted {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { continuation.yield(event) }
            source.resume()
            sources.append(source)
        }
        let holder = SignalSources(sources)
        continuation.onTermination = { _ in holder.cancel() }
        return stream
    }

    /// Keeps the signal sources alive while their stream is; `DispatchSourceSignal` is not Sendable on Linux.
    private final class SignalSources: @unchecked Sendable {
        let sources: [any DispatchSourceSignal]
        init(_ sources: [any DispatchSourceSignal]) { self.sources = sources }
        func cancel() { for source in sources { source.cancel() } }
    }

    /// `line` cut to `width` visible columns, keeping SGR escape sequences (and closing them when cut).
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
            if visible >= width {
                if styled { result += "\u{1B}[0m" }
                return result
            }
            result.append(character)
            visible += 1
        }
        return result
    }
}
