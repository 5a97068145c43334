/// Every exit code a chatdir command returns and when, as README's "Commands" section states
/// them; the man page's EXIT STATUS is printed from here (a test holds README to the same words).
enum ExitStatusTable {
    static let rows: [(code: Int32, meaning: String)] = [
        (0, "ok"),
        (1, "nothing found (`search`), a conflict left in the file (`merge-file`), the devices differ (`demo`)"),
        (64, "usage: an unknown command or option, a missing or bad argument"),
        (
            65,
            "bad data: a damaged store file, a message the server rejected (`sync`), a message already sent (`cancel`), a join or leave the homeserver refused (`join`, `leave`)"
        ),
        (66, "no such store or conversation (nor outbox message, CA file, `serve --data` directory)"),
        (
            69,
            "unavailable (`serve`: the port is in use; `git-setup`: git cannot run; `demo --tls`: no openssl; `join`, `leave`, `login`, `logout`: a store of a chatdir server)"
        ),
        (70, "internal error: a bug, or `demo` gave up waiting"),
        (73, "cannot create: `init` or `create` where something exists already"),
        (74, "I/O error: the disk refused a write or a read"),
        (
            75,
            "try again: the store is held by `sync --live`, messages still pending (`sync`), an unhealthy worker (`status`)"
        ),
        (76, "the server broke the contract"),
        (77, "permission or token refused (also a token file or key others can read, a wrong password for `login`)"),
        (
            78,
            "not configured: no server, no usable token (a missing or empty token file, a failing `token-command`), a broken config file"
        ),
        (130, "when `history` is stopped with Ctrl-C or SIGTERM"),
    ]
}
