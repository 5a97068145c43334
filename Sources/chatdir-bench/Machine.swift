import Foundation

/// The facts of the machine a run was made on, for the report.
enum Machine {
    static func facts(cache: String) -> [String: String] {
        var facts: [String: String] = ["cores": String(ProcessInfo.processInfo.activeProcessorCount)]
        facts["memory"] = "\(ProcessInfo.processInfo.physicalMemory / (1 << 20)) MiB"
        facts["kernel"] = (try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        if let output = try? Subprocess.capture(["df", "-hT", cache], allowFailure: true).output,
            let line = String(decoding: output, as: UTF8.self).split(separator: "\n").last
        {
            facts["disk"] = line.split(separator: " ", omittingEmptySubsequences: true).prefix(3).joined(separator: " ")
        }
        let date = ISO8601DateFormatter().string(from: Date())
        facts["date"] = date
        facts["load at start"] = load()
        return facts
    }

    /// The 1, 5 and 15 minute load averages and the I/O pressure (PSI "some" avg60): on a shared
    /// machine, the way to tell a quiet run from one that raced another build or test suite.
    static func load() -> String {
        let average =
            (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(
                separator: " ") ?? "?"
        let pressure =
            (try? String(contentsOfFile: "/proc/pressure/io", encoding: .utf8))?
            .split(separator: "\n").first?.split(separator: " ").first { $0.hasPrefix("avg60=") }.map {
                "io pressure " + $0
            } ?? ""
        return "loadavg \(average) \(pressure)".trimmingCharacters(in: .whitespaces)
    }
}
