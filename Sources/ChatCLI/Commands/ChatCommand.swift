import ChatDomain
import ChatStore
import ChatSystem

/// `chatdir chat`: one conversation as a whole chat client on the terminal. Everything it does
/// goes through files: sends and retries into the outbox, the read position through the
/// outbox's read wish, typing and older-page wishes through the ``RuntimeChannel`` to the sync
/// worker. It never calls the network, so no key ever waits on it.
enum ChatCommand: Command {
    static let spec = CommandSpec(
        name: "chat",
        summary: "Open a conversation as a chat screen: read, type and send, retry, scroll back.",
        usage: ["CONV [--no-mouse]"],
        options: [
            .init(
                name: "--no-mouse", value: nil,
                help: "leave the mouse to the terminal (text selection) instead of scrolling with the wheel")
        ],
        discussion: """
            The rows of `view --follow`, newest at the bottom, with an input line under them.
            Enter sends (the message is queued in the outbox at once, like `chatdir send`, and the
            running sync worker delivers it), Alt-Enter or Ctrl-J starts a new line, ↑ on an empty
            line brings back the last message sent. The line edits as in a shell: ←/→, Home/End,
            Ctrl-A/Ctrl-E, Ctrl-U, Ctrl-W, Ctrl-K, Backspace, Delete.
            Tab (or Shift-Tab) selects my messages, failed ones first; r or Enter retries a selected
            failed one under its client message ID; i (or Enter on a sent one) shows who has it and
            who read it; Esc clears the selection.
            PageUp/PageDown and the mouse wheel scroll; at the top, older stored messages are read,
            and then the sync worker is asked for older pages from the server. While the newest
            message is on screen (and the window has focus) the conversation is marked read.
            Members who are typing are shown under the rows; while I type, the worker tells the
            others. Ctrl-C, or Ctrl-D on an empty line, leaves and restores the terminal.

            Needs a terminal on standard input and output; in a pipe use `chatdir view CONV --follow`.
            Sending, receipts, typing and older pages need `chatdir sync --live` running for the
            store; without it messages wait in the outbox. The status line says how the worker fares,
            as `chatdir status` does: connected, reconnecting (why, and the seconds to its next try),
            or why the last one stopped (a refused token). A conversation the worker stopped on (a
            damaged file) and a file of it the screen cannot read (git conflict markers) are named
            under the title, with the path, the line and what to do. "beginning of the conversation"
            shows only with its first message (sequence 1) in view.
            As with `view --follow`, when the kernel's inotify limits are reached the screen checks
            for changes every second instead, and says so on the status line and, once the screen is
            left, on stderr.

            Examples:
              chatdir chat c1
              chatdir sync --live & chatdir chat c1
            """
    )

    static func run(_ context: Context) throws -> Int32 {
        let arguments = context.arguments
        try arguments.expectAtMost(1)
        let id = try context.conversationID(try arguments.positional(0, "CONV (the conversation to open)"))
        guard TerminalDevice.isTerminal(StandardIO.input), TerminalDevice.isTerminal(StandardIO.output) else {
            throw context.usage(
                "chat needs a terminal on standard input and output; in a pipe use `\(context.hint.command("view", "\(id) --follow"))`"
            )
        }
        let store = try context.openStore()
        let session = try ChatSession(
            store: store, conversation: try store.existingConversation(id),
            channel: RuntimeChannel(storeRoot: store.root, runtimeDirectory: context.environment["XDG_RUNTIME_DIR"]),
            output: context.output, hint: context.hint, mouse: !arguments.flag("--no-mouse"),
            opened: { context.recordOpen(store: store) })
        return try Follow.block { try await session.run() }
    }
}
