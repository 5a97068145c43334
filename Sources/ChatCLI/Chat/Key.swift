/// One thing the user did at the keyboard (or with the mouse, or with the window's focus), as
/// the chat screen's key decoder reads it from the terminal's bytes. What a key means depends on
/// the screen's state (`r` types a letter, or retries the selected row), so the view model, not
/// the decoder, decides.
enum Key: Hashable, Sendable {
    /// Printable text typed: one or more characters, never a control character.
    case text(String)
    /// Text pasted with bracketed paste: may hold newlines, which insert rather than send.
    case paste(String)
    /// Enter (CR): send the line, or act on the selected row.
    case enter
    /// Alt-Enter or Ctrl-J: a newline inside the message.
    case newline
    /// Backspace (DEL or Ctrl-H).
    case backspace
    /// Delete (ESC [ 3 ~).
    case delete
    case left, right, up, down, home, end, pageUp, pageDown
    /// Tab, and Shift-Tab (ESC [ Z).
    case tab, backTab
    /// Ctrl with a letter other than those named above (Ctrl-A is `control("a")`).
    case control(Character)
    /// Escape on its own.
    case escape
    /// The mouse wheel, when the terminal reports it (SGR mouse mode).
    case wheelUp, wheelDown
    /// The window gained or lost focus, when the terminal reports it (focus reporting mode).
    case focusIn, focusOut
}
