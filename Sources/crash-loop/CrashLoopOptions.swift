import Foundation

/// The command line of crash-loop (main.swift parses it).
struct CrashLoopOptions {
    var kills = 25
    var seed = UInt64(Date().timeIntervalSince1970 * 1000)
    /// The `chatdir` binary; default: the one built next to this executable.
    var chatdir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("chatdir").path
    /// Where the server's data and alice's store go; default: a fresh temp directory, removed on success.
    var directory: String?
    var quiet = false
    /// Also stop the live worker with SIGTERM in one live round in ten (it must exit 0).
    var sigterm = false
}
