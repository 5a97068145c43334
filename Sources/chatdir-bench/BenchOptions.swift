/// What one run of `chatdir-bench` measures, parsed from the command line, and the run counts
/// each workload uses (the same as the peer runner's for the same mode).
struct BenchOptions: Sendable {
    var quick = false
    var jsonPath: String?
    /// Seeded stores (reused between runs) and every workload's scratch directories.
    var cache = ".build/bench-cache"
    /// Conversation sizes for open, append and scan.
    var sizes: [Int] = [10_000, 100_000, 1_000_000]
    /// The Maildir peer is filled one file per message; past this size it is not run (a
    /// million files take minutes to list and to make). SQLite runs every size.
    var maildirMaxSize = 100_000
    /// The release `chatdir` binary, for `view` and `send` (and for seeding).
    var chatdir = ".build/release/chatdir"
    var peersScript: String?
    /// bench/matrix_runner.py, found like the peers' script unless given.
    var matrixScript: String?
    var python = "python3"
    /// Which groups to run: store, peers, cli, sync, conversations, server, burst, hostile (all
    /// when empty; sync includes conversations), and matrix, which runs only when named: it
    /// needs Synapse, and seeding it takes minutes the first time.
    var only: Set<String> = []

    static let groups: Set<String> = [
        "store", "peers", "cli", "sync", "conversations", "server", "burst", "hostile", "matrix",
    ]

    static let usage = """
        usage: chatdir-bench [--quick] [--json FILE] [--cache DIR] [--sizes N,N,…] [--maildir-max N]
                             [--chatdir PATH] [--peers PATH] [--matrix-runner PATH] [--python PATH] [--only store,peers,cli,sync,conversations,server,burst,hostile,matrix]

        Runs the workloads of BENCHMARKS.md on chatdir's store, runs the SQLite and
        Maildir peers (bench/peers_runner.py) with the same sizes, and prints one table.
          --quick        sizes 10k and 100k, fewer runs: about a minute once the cache is seeded
          --json FILE    also write every raw figure to FILE
          --cache DIR    seeded stores and scratch space (default .build/bench-cache)
          --sizes        conversation sizes for open, append and scan (default 10000,100000,1000000)
          --maildir-max  largest size the Maildir peer is filled to (default 100000)
          --chatdir      the release chatdir binary (default .build/release/chatdir)
          --only         run only these groups (conversations: the first sync of many conversations; server: POSTs/s from 8 keep-alive clients, live fan-out to 50 members; burst: 1,000 live events at once; matrix: against a local Synapse, only when named)
        Build both first, with the release tuning (CHATDIR_RELEASE=1 in the environment, as make install builds):
          swift build -c release --product chatdir --disable-local-rpath && swift build -c release --product chatdir-bench
        """

    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> BenchOptions {
        var options = BenchOptions()
        var sizesGiven = false
        var index = 0
        func value(_ name: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError(description: "\(name) needs a value") }
            return arguments[index]
        }
        func number(_ name: String, _ text: String) throws(UsageError) -> Int {
            guard let number = Int(text.filter { $0 != "_" }), number > 0 else {
                throw UsageError(
                    description: "\(name): expected a positive whole number, found \(text.debugDescription)")
            }
            return number
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--quick": options.quick = true
            case "--json": options.jsonPath = try value(argument)
            case "--cache": options.cache = try value(argument)
            case "--chatdir": options.chatdir = try value(argument)
            case "--peers": options.peersScript = try value(argument)
            case "--matrix-runner": options.matrixScript = try value(argument)
            case "--python": options.python = try value(argument)
            case "--maildir-max": options.maildirMaxSize = try number(argument, try value(argument))
            case "--sizes":
                var sizes: [Int] = []
                for part in try value(argument).split(separator: ",") {
                    sizes.append(try number(argument, String(part)))
                }
                guard !sizes.isEmpty else { throw UsageError(description: "--sizes needs at least one size") }
                options.sizes = sizes
                sizesGiven = true
            case "--only":
                let groups = Set(try value(argument).split(separator: ",").map(String.init))
                guard !groups.isEmpty, groups.isSubset(of: Self.groups) else {
                    throw UsageError(
                        description:
                            "--only: expected some of \(Self.groups.sorted().joined(separator: ",")), found \(groups.sorted().joined(separator: ","))"
                    )
                }
                options.only = groups
            case "--help", "-h":
                throw UsageError(description: usage)
            default:
                throw UsageError(description: "unknown argument \(argument.debugDescription)\n\n\(usage)")
            }
            index += 1
        }
        if options.quick && !sizesGiven { options.sizes = [10_000, 100_000] }
        return options
    }

    func runs(_ group: String) -> Bool {
        group == "matrix" ? only.contains(group) : only.isEmpty || only.contains(group)
    }

    /// The largest size: the conversation `view` is measured on.
    var largestSize: Int { sizes.max() ?? 10_000 }

    // Run counts: the same as bench/peers_runner.py uses.
    var openRuns: Int { quick ? 50 : 200 }
    var appendCount: Int { quick ? 100 : 500 }
    var ingestTotal: Int { quick ? 20_000 : 100_000 }
    var ingestPage: Int { 500 }
    var outboxCount: Int { quick ? 200 : 1000 }
    var gitPages: Int { quick ? 20 : 100 }
    var gitPageSize: Int { 100 }

    // chatdir-only workloads.
    var viewRuns: Int { quick ? 5 : 20 }
    var sendRuns: Int { quick ? 5 : 20 }
    var catchUpMessages: Int { quick ? 20_000 : 100_000 }
    var drainCount: Int { quick ? 200 : 1000 }
    /// One-message conversations in the first-sync row (the goal is stated for 10k).
    var manyConversations: Int { quick ? 2_000 : 10_000 }
    var liveCount: Int { quick ? 200 : 1000 }
    var postSeconds: Int { quick ? 2 : 5 }
    var fanOutCount: Int { quick ? 50 : 200 }
    var burstCount: Int { 1000 }
    var burstRuns: Int { quick ? 1 : 3 }
    /// First syncs of each Matrix workload, by turns with the minimal pager.
    var matrixRuns: Int { quick ? 1 : 3 }
    /// Live messages per side (the goal is stated for 100).
    var matrixLive: Int { quick ? 20 : 100 }
}
