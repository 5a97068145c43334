import Foundation

/// What a run found: the counts for the summary line and every broken rule, with its round.
struct CrashLoopOutcome {
    var kills = 0
    /// SIGKILLs of send, read and retry themselves (not counted in ``kills``).
    var commandKills = 0
    /// SIGKILLs of `chatdir serve` (restarted on the same data).
    var serverKills = 0
    /// Live workers stopped with SIGTERM (expected to exit 0).
    var stops = 0
    var rounds = 0
    var sent = 0
    var rejected = 0
    var fromBob = 0
    var lost = Set<String>()
    var doubled = Set<String>()
    var unparseable = 0
    var serverDuplicates = 0
    var readBackwards = 0
    var finalPasses = 0
    var seconds = 0.0
    var seed: UInt64 = 0
    var findings: [String] = []

    var summary: String {
        "crash-loop: kills=\(kills) rounds=\(rounds) command-kills=\(commandKills) server-kills=\(serverKills) sigterm-stops=\(stops) messages=\(sent + fromBob) (alice \(sent), rejected at least once \(rejected), bob \(fromBob)) "
            + "lost=\(lost.count) doubled=\(doubled.count) unparseable=\(unparseable) server-duplicates=\(serverDuplicates) "
            + "read-backwards=\(readBackwards) final-passes=\(finalPasses) seconds=\(String(format: "%.1f", seconds)) seed=\(seed)"
    }
}
