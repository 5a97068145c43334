#if canImport(Glibc)
    import Glibc
#endif

/// The command line of chat-latency (main.swift parses it): how many samples of each figure,
/// which figures, the binaries and data it drives, and the overall deadline.
struct LatencyOptions {
    /// The figures this tool measures, in the order it measures them.
    enum Measurement: String, CaseIterable {
        case keys, enter, typing
    }

    /// Messages in the followed conversation of the key and Enter figures.
    var messages = 10_000
    var keySamples = 300
    var enterSamples = 100
    var typingSamples = 12
    var only: [Measurement] = Measurement.allCases
    /// Seconds after which the whole run gives up, cleans up and exits 1.
    var deadlineSeconds = 300
    /// The `chatdir` binary; default: the one built next to this executable.
    var chatdir = LatencyOptions.besideThisExecutable("chatdir")
    /// The server data directory copied for the typing figure; default: SampleData/server of the
    /// package this executable was built in (or of the working directory).
    var sampleData: String?
    /// `nil`: no JSON; `"-"`: JSON on stdout instead of the table; else a file for it.
    var json: String?
    /// Keep the scratch directory (stores, server data, logs) and print where it is.
    var keep = false

    static let usage = """
        usage: chat-latency [--messages N] [--keys N] [--enters N] [--typing N] [--only keys,enter,typing]
                            [--deadline SECONDS] [--chatdir PATH] [--sample-data DIR] [--json [FILE]] [--keep]

        Drives the real `chatdir chat` in pseudo-terminals (120x40, TERM=xterm-256color, NO_COLOR=1,
        TZ=UTC) and prints p50/p90/p99/max of three figures (BENCHMARKS.md, "Chat screen latency"):
          keys    a key written to the terminal → the frame with the redrawn input line (default 300)
          enter   Enter → the frame showing the message as a pending row (default 100)
          typing  a key on alice's screen → "alice is typing" on bob's, through two `chatdir sync
                  --live` workers and `chatdir serve` (default 12, about 7 s each)
        Options:
          --messages     messages in the conversation followed by keys and enter (default 10000)
          --deadline     give up after this many seconds, stop every child, exit 1 (default 300)
          --chatdir      the chatdir binary (default: next to this executable)
          --sample-data  the server data to copy for typing (default: SampleData/server of the package)
          --json         JSON on stdout instead of the table; --json FILE writes it to FILE as well
          --keep         keep the scratch directory and its logs
        Build both first: CHATDIR_RELEASE=1 swift build -c release --product chat-latency --product chatdir
        """

    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> LatencyOptions {
        var options = LatencyOptions()
        var index = 0
        func value(_ name: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError(description: "\(name) needs a value") }
            return arguments[index]
        }
        // Bounded, so a slip of the finger (a sample count of 10 million, a deadline of years)
        // is refused rather than run.
        func number(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int {
            let text = try value(name)
            guard let number = Int(text.filter { $0 != "_" }), range.contains(number) else {
                throw UsageError(
                    description:
                        "\(name): expected a whole number from \(range.lowerBound) to \(range.upperBound), found \(text.debugDescription)"
                )
            }
            return number
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--messages": options.messages = try number(argument, in: 1...1_000_000)
            case "--keys": options.keySamples = try number(argument, in: 1...100_000)
            case "--enters": options.enterSamples = try number(argument, in: 1...10_000)
            case "--typing": options.typingSamples = try number(argument, in: 1...1_000)
            case "--deadline": options.deadlineSeconds = try number(argument, in: 1...86_400)
            case "--chatdir": options.chatdir = try value(argument)
            case "--sample-data": options.sampleData = try value(argument)
            case "--keep": options.keep = true
            case "--json":
                if index + 1 < arguments.count, !arguments[index + 1].hasPrefix("--") {
                    options.json = try value(argument)
                } else {
                    options.json = "-"
                }
            case "--only":
                let text = try value(argument)
                var chosen: [Measurement] = []
                for word in text.split(separator: ",") {
                    guard let measurement = Measurement(rawValue: String(word)) else {
                        throw UsageError(
                            description: "--only: \(String(word).debugDescription) is not one of keys, enter, typing")
                    }
                    if !chosen.contains(measurement) { chosen.append(measurement) }
                }
                guard !chosen.isEmpty else {
                    throw UsageError(description: "--only needs at least one of keys, enter, typing")
                }
                options.only = Measurement.allCases.filter(chosen.contains)
            case "--help", "-h": throw UsageError(description: usage)
            default: throw UsageError(description: "unknown argument \(argument.debugDescription)\n\n" + usage)
            }
            index += 1
        }
        return options
    }

    /// `name` in the directory of this executable, symlinks resolved (`.build/release/chatdir`
    /// beside `.build/release/chat-latency`).
    static func besideThisExecutable(_ name: String) -> String {
        directoryOfThisExecutable() + "/" + name
    }

    static func directoryOfThisExecutable() -> String {
        let invoked = CommandLine.arguments.first ?? "."
        var resolved = invoked
        if let real = realpath("/proc/self/exe", nil) ?? realpath(invoked, nil) {
            resolved = String(cString: real)
            free(real)
        }
        guard let slash = resolved.lastIndex(of: "/") else { return "." }
        return String(resolved[..<slash])
    }
}
