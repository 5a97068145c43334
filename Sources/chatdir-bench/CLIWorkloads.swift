import ChatDomain
import ChatStore
import Foundation

/// The release `chatdir` binary as a user runs it: process wall time (posix_spawn to wait4) and
/// peak resident memory (``Subprocess/peakRSS(_:python:)``) of `view` and `send`.
enum CLIWorkloads {
    struct Figures {
        /// Median process wall time, ms.
        var wallMilliseconds: Double
        /// Highest peak RSS over a few runs, MiB (ru_maxrss / 1024, as /usr/bin/time -f %M / 1024).
        var peakRSSMegabytes: Double
        /// What measured the peak RSS.
        var rssTool: String
        var runs: Int
    }

    /// `chatdir view --store STORE c1` (the newest 50 rows, plain text to /dev/null), `runs`
    /// times after one warm-up run.
    static func view(chatdir: String, store: String, runs: Int, python: String) throws -> Figures {
        try measure([chatdir, "view", "--store", store, "c1"], runs: runs, python: python)
    }

    /// `chatdir send --store STORE c1 "on my way"`, `runs` times after one warm-up run, into
    /// a scratch store of 1,000 messages (the outbox grows by one file each run).
    static func send(chatdir: String, scratch: String, runs: Int, python: String) throws -> Figures {
        try sendScratch(chatdir: chatdir, at: scratch)
        return try measure(sendArguments(chatdir: chatdir, scratch: scratch), runs: runs, python: python)
    }

    /// Median process wall time of `arguments` over `runs` runs after one warm-up run, ms.
    static func medianWall(_ arguments: [String], runs: Int) throws -> Double {
        var walls: [Double] = []
        for run in 0...runs {
            let result = try Subprocess.timed(arguments, environment: ["NO_COLOR": "1"])
            guard result.status == 0 else {
                throw Subprocess.Failure(
                    description: "\(arguments.joined(separator: " ")) exited with \(result.status)")
            }
            if run == 0 { continue } // warm-up: page cache and dynamic loader
            walls.append(result.wallSeconds * 1e3)
        }
        return Stats.median(walls)
    }

    /// Median process wall times of `first` and `second` over `runs` runs each, run by turns
    /// after one warm-up run of each, ms. Paired, so a slow moment of the machine falls on both
    /// sides of a ratio instead of on whichever ran then; each round swaps which goes first
    /// (first, second, second, first, …: ``Stats/turnOrder(_:)``).
    static func pairedMedianWalls(_ first: [String], _ second: [String], runs: Int) throws -> (
        first: Double, second: Double
    ) {
        var walls: ([Double], [Double]) = ([], [])
        for run in 0...runs {
            for index in Stats.turnOrder(run) {
                let arguments = index == 0 ? first : second
                let result = try Subprocess.timed(arguments, environment: ["NO_COLOR": "1"])
                guard result.status == 0 else {
                    throw Subprocess.Failure(
                        description: "\(arguments.joined(separator: " ")) exited with \(result.status)")
                }
                if run == 0 { continue } // warm-up: page cache and dynamic loader
                if index == 0 {
                    walls.0.append(result.wallSeconds * 1e3)
                } else {
                    walls.1.append(result.wallSeconds * 1e3)
                }
            }
        }
        return (Stats.median(walls.0), Stats.median(walls.1))
    }

    /// A scratch store of 1,000 messages in one conversation for `send` to queue into.
    static func sendScratch(chatdir: String, at scratch: String) throws {
        Subprocess.removeTree(scratch)
        try Subprocess.capture([
            chatdir, "seed", scratch, "--conversations", "1", "--messages", "1000", "--members", "5",
        ])
    }

    /// `chatdir send` into the scratch store of ``sendScratch(chatdir:at:)``.
    static func sendArguments(chatdir: String, scratch: String) -> [String] {
        [chatdir, "send", "--store", scratch, "c1", "on", "my", "way"]
    }

    private static func measure(_ arguments: [String], runs: Int, python: String) throws -> Figures {
        let wall = try medianWall(arguments, runs: runs)
        var peak = 0
        var tool = ""
        for _ in 0..<3 {
            let rss = try Subprocess.peakRSS(arguments, python: python)
            peak = max(peak, rss.kilobytes)
            tool = rss.tool
        }
        return Figures(wallMilliseconds: wall, peakRSSMegabytes: Double(peak) / 1024, rssTool: tool, runs: runs)
    }
}
