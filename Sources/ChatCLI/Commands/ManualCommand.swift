/// `chatdir manual [chatdir|store]`: prints chatdir(1) or chatdir-store(5) as man(7) roff.
enum ManualCommand: Command {
    static let spec = CommandSpec(
        name: "manual",
        summary: "Print the manual page chatdir(1) or chatdir-store(5) as roff, for man.",
        usage: ["[chatdir|store]"],
        options: [],
        discussion: """
            chatdir(1) is built from the same descriptions as --help; chatdir-store(5) from the
            store format document built into chatdir. Read one without installing it:
              chatdir manual | man -l -
              chatdir manual store | man -l -
            make install puts them in PREFIX/share/man/man1/chatdir.1 and man5/chatdir-store.5.
            """,
        takesStore: false
    )

    static func run(_ context: Context) throws -> Int32 {
        let arguments = context.arguments
        try arguments.expectAtMost(1)
        switch arguments.positionals.first ?? "chatdir" {
        case "chatdir": Output.write(1, CommandManualPage.roff())
        case "store": Output.write(1, StoreManualPage.roff())
        case let page:
            throw context.usage(
                "no manual page \(page.debugDescription); choose chatdir (chatdir(1)) or store (chatdir-store(5))")
        }
        return 0
    }
}
