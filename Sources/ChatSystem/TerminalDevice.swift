#if canImport(Glibc)
    import Glibc
#endif

/// The terminal calls: whether a descriptor is a terminal, its size (`ioctl TIOCGWINSZ`), and a
/// quiet input mode (`termios` without echo or line editing; signals stay on, so Ctrl-C still arrives).
public enum TerminalDevice {
    /// `isatty(3)`.
    public static func isTerminal(_ fd: Int32) -> Bool {
        isatty(fd) == 1
    }

    /// Rows and columns of the terminal on `fd`; nil when it is not a terminal.
    public static func size(of fd: Int32) -> (rows: Int, columns: Int)? {
        var window = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &window) == 0, window.ws_row > 0, window.ws_col > 0 else { return nil }
        return (Int(window.ws_row), Int(window.ws_col))
    }

    /// The input settings of a terminal as they were, to put back with ``restore()``.
    public struct Settings: Sendable {
        fileprivate let fd: Int32
        fileprivate let saved: termios

        /// Puts the settings back (`tcsetattr`, at once).
        public func restore() {
            var saved = saved
            _ = tcsetattr(fd, TCSANOW, &saved)
        }
    }

    /// Turns echo and line editing off on `fd` (standard input); returns the settings before,
    /// or nil when `fd` is not a terminal.
    public static func enterQuietMode(_ fd: Int32) -> Settings? {
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else { return nil }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO | ICANON)
        _ = tcsetattr(fd, TCSANOW, &quiet)
        return Settings(fd: fd, saved: saved)
    }

    /// Turns echo off on `fd` and keeps line editing (a password prompt: Backspace still
    /// works, Enter ends the line, Ctrl-C still raises SIGINT); returns the settings before, or
    /// nil when `fd` is not a terminal.
    public static func enterNoEchoMode(_ fd: Int32) -> Settings? {
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else { return nil }
        var hidden = saved
        hidden.c_lflag &= ~tcflag_t(ECHO | ECHOE | ECHOK)
        hidden.c_lflag |= tcflag_t(ICANON)
        _ = tcsetattr(fd, TCSAFLUSH, &hidden)
        return Settings(fd: fd, saved: saved)
    }

    /// The chat screen's input mode on `fd`: every key arrives as typed, at once (no echo, no
    /// line editing, VMIN 1), Enter arrives as CR and Ctrl-J as LF (no ICRNL, so the two differ),
    /// Ctrl-S, Ctrl-Q, Ctrl-V and Ctrl-O arrive as keys (no IXON, no IEXTEN). Ctrl-C still raises
    /// SIGINT, so the screen ends (and restores the terminal) even while it is busy; Ctrl-Z is
    /// turned off (VSUSP disabled), since a stopped screen would leave the shell in raw mode.
    /// Returns the settings before, or nil when `fd` is not a terminal.
    public static func enterChatMode(_ fd: Int32) -> Settings? {
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else { return nil }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN)
        raw.c_iflag &= ~tcflag_t(ICRNL | INLCR | IGNCR | IXON)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
            cc[Int(VSUSP)] = 0
        }
        _ = tcsetattr(fd, TCSANOW, &raw)
        return Settings(fd: fd, saved: saved)
    }
}
