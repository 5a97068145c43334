// The crash loop over the whole path, for the crash-loop test and scripts/soak-crash.sh: a real
// `chatdir serve` with every fault on (reject-text too, so some messages fail), alice's store
// driven only through the `chatdir` commands (send, read, retry, sync, sync --live), the sync
// process SIGKILLed at random moments while bob's messages arrive (and now and then the
// commands themselves and the server). After every kill each file
// parses, no acknowledged send is lost, nothing is doubled and read positions never go back;
// at the end (faults off, failed ones retried, one clean sync) the server holds each sent
// message once and agrees with the store.
//
//   crash-loop --kills N [--seed S] [--chatdir PATH] [--dir DIR] [--quiet] [--sigterm]
//
// Prints one summary line on stdout (kills, messages, lost, doubled, unparseable, server
// duplicates, seconds); exits 0 when every check held, 1 with the seed and the findings on
// stderr otherwise, 64 for bad arguments.
import ChatDomain
import ChatServer
import ChatStore
import ChatSync
import Foundation

func usage(_ message: String) -> Never {
    FileHandle.standardError.write(
        Data(
            ("crash-loop: " + message
                + "\nusage: crash-loop --kills N [--seed S] [--chatdir PATH] [--dir DIR] [--quiet] [--sigterm]\n").utf8)
    )
    exit(64)
}

var options = CrashLoopOptions()
var argumentIndex = 1
let argv = CommandLine.arguments
while argumentIndex < argv.count {
    let name = argv[argumentIndex]
    func value() -> String {
        guard argumentIndex + 1 < argv.count else { usage("\(name) needs a value") }
        argumentIndex += 1
        return argv[argumentIndex]
    }
    switch name {
    case "--kills":
        guard let kills = Int(value()), kills >= 1 else { usage("--kills wants a whole number ≥ 1") }
        options.kills = kills
    case "--seed":
        guard let seed = UInt64(value()) else { usage("--seed wants a whole number") }
        options.seed = seed
    case "--chatdir": options.chatdir = value()
    case "--dir": options.directory = value()
    case "--quiet": options.quiet = true
    case "--sigterm": options.sigterm = true
    default: usage("unknown argument \(name)")
    }
    argumentIndex += 1
}

let outcome = await CrashLoop.run(options)
print(outcome.summary)
if !outcome.findings.isEmpty {
    var text =
        "crash-loop: FAILED with seed \(options.seed) (rerun: crash-loop --kills \(options.kills) --seed \(options.seed))\n"
    for finding in outcome.findings.prefix(40) { text += "  " + finding + "\n" }
    FileHandle.standardError.write(Data(text.utf8))
    exit(1)
}
exit(0)
