import ChatSystem

/// The monotonic clock and the summaries every workload reports, computed the way the peer
/// runner computes them so the two sides are comparable.
enum Stats {
    /// Nanoseconds on CLOCK_MONOTONIC.
    static func now() -> UInt64 {
        Clock.monotonicNanoseconds()
    }

    /// Runs `body` and returns how long it took, in seconds.
    static func seconds<T>(_ body: () throws -> T) rethrows -> (seconds: Double, result: T) {
        let start = now()
        let result = try body()
        return (Double(now() - start) / 1e9, result)
    }

    /// The median (the mean of the two middle values for an even count), as Python's
    /// `statistics.median`.
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// p50 as `sorted[n / 2]` and p99 as `sorted[int(n * 0.99) - 1]`: the peers' formulas.
    static func p50p99(_ values: [Double]) -> (p50: Double, p99: Double) {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return (.nan, .nan) }
        return (sorted[sorted.count / 2], sorted[max(0, Int(Double(sorted.count) * 0.99) - 1)])
    }

    /// Which of two sides goes first in round `round` of a by-turns measurement: 0 then 1 in even
    /// rounds, 1 then 0 in odd ones, so each goes first in half the rounds (the same program
    /// measured 0.19 ms apart in the two places of a fixed turn: BENCHMARKS.md, "Process start").
    static func turnOrder(_ round: Int) -> [Int] {
        round % 2 == 0 ? [0, 1] : [1, 0]
    }

    static func round1(_ value: Double) -> Double { (value * 10).rounded() / 10 }
    /// To 0.01: the process rows beside the sqlite3 shell are 2–5 ms, where 0.1 ms is 2–5 % of a ratio.
    static func round2(_ value: Double) -> Double { (value * 100).rounded() / 100 }
}
