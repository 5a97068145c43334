/// chatdir's exit codes and what each means, as README's "Commands" section states them; the
/// man page's EXIT STATUS is printed from here (a test holds README to the same words).
enum ExitStatusTable {
    static let rows: [(code: Int32, meaning: String)] = [
        (0, "ok"),
        (64, "usage"),
        (65, "bad data"),
        (66, "no such store or conversation"),
        (73, "cannot create"),
        (74, "I/O error"),
        (75, "try again"),
        (76, "the server broke the contract"),
        (77, "permission or token refused"),
        (78, "no server or token set"),
        (130, "when `history` is stopped with Ctrl-C or SIGTERM"),
    ]
}
