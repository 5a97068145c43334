/// One measured latency: its samples in milliseconds, the percentiles the table shows, and the
/// goal it is judged against (BENCHMARKS.md, "Chat screen latency").
struct Figure {
    enum Percentile: String {
        case p50, p90, p99, max

        var fraction: Double {
            switch self {
            case .p50: 0.5
            case .p90: 0.9
            case .p99: 0.99
            case .max: 1.0
            }
        }
    }

    /// A short key for the JSON (`keys`, `enter`, `typing`).
    var key: String
    /// What is timed, for the table.
    var name: String
    var samples: [Double] = []
    /// Samples that never arrived (the awaited frame did not come within its timeout).
    var lost = 0
    /// The goal: this percentile at most this many milliseconds.
    var goal: (percentile: Percentile, milliseconds: Double)

    /// The nearest-rank percentile (as observer-latency computes it); nil without samples.
    func value(_ percentile: Percentile) -> Double? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        let rank = Int((percentile.fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count - 1, max(0, rank - 1))]
    }

    /// Whether the goal is met; nil without samples.
    var met: Bool? {
        value(goal.percentile).map { $0 <= goal.milliseconds && lost == 0 }
    }

    static func milliseconds(_ value: Double?) -> String {
        guard let value else { return "—" }
        return value < 10 ? format(value, decimals: 2) + " ms" : format(value, decimals: 1) + " ms"
    }

    /// `value` with `decimals` digits after the point (no Foundation in this tool).
    static func format(_ value: Double, decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int((value * scale).rounded())
        let whole = scaled / Int(scale)
        let fraction = String(abs(scaled) % Int(scale))
        guard decimals > 0 else { return String(whole) }
        let sign = scaled < 0 && whole == 0 ? "-" : ""
        return sign + String(whole) + "." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }

    /// The markdown table of `figures`, as BENCHMARKS.md shows it.
    static func table(_ figures: [Figure]) -> String {
        var lines = [
            "| figure | n | lost | p50 | p90 | p99 | max | goal | met |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |",
        ]
        for figure in figures {
            let goal = "\(figure.goal.percentile.rawValue) ≤ \(format(figure.goal.milliseconds, decimals: 0)) ms"
            let met = figure.met.map { $0 ? "yes" : "**no**" } ?? "—"
            let values = [Percentile.p50, .p90, .p99, .max].map { milliseconds(figure.value($0)) }
            lines.append(
                "| \(figure.name) | \(figure.samples.count) | \(figure.lost) | " + values.joined(separator: " | ")
                    + " | \(goal) | \(met) |")
        }
        return lines.joined(separator: "\n")
    }

    /// One JSON object for the run: the settings, each figure's percentiles and every sample.
    static func json(_ figures: [Figure], settings: [(String, String)]) -> String {
        func number(_ value: Double?) -> String {
            value.map { format($0, decimals: 3) } ?? "null"
        }
        func quoted(_ text: String) -> String {
            var result = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": result += "\\\""
                case "\\": result += "\\\\"
                case "\n": result += "\\n"
                default:
                    if scalar.value < 0x20 {
                        let hex = String(scalar.value, radix: 16)
                        result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    } else {
                        result.unicodeScalars.append(scalar)
                    }
                }
            }
            return result + "\""
        }
        let settingsText = settings.map { "\(quoted($0.0)):\($0.1)" }.joined(separator: ",")
        let figuresText = figures.map { figure in
            let percentiles = [Percentile.p50, .p90, .p99, .max].map {
                "\"\($0.rawValue)_ms\":\(number(figure.value($0)))"
            }
            let met = figure.met.map { $0 ? "true" : "false" } ?? "null"
            return
                "{\"key\":\(quoted(figure.key)),\"name\":\(quoted(figure.name)),\"n\":\(figure.samples.count),\"lost\":\(figure.lost),"
                + percentiles.joined(separator: ",")
                + ",\"goal\":{\"percentile\":\(quoted(figure.goal.percentile.rawValue)),\"ms\":\(number(figure.goal.milliseconds))},\"met\":\(met),"
                + "\"samples_ms\":[" + figure.samples.map { number($0) }.joined(separator: ",") + "]}"
        }.joined(separator: ",")
        return "{\"tool\":\"chat-latency\",\"settings\":{\(settingsText)},\"figures\":[\(figuresText)]}"
    }
}
