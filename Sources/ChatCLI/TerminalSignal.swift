/// What the terminal or the system tells a following screen.
enum TerminalSignal: Sendable {
    /// SIGWINCH: the window changed size; redraw.
    case resize
    /// SIGINT (Ctrl-C), SIGTERM or SIGHUP: restore the terminal and exit 0.
    case stop
}
