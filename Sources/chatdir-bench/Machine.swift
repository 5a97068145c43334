import Foundation

/// The facts of the machine a run was made on, for the report.
enum Machine {
    static func facts(cache: String) -> [String: String] {
        var facts: [String: String] = ["cores": String(ProcessInfo.processInfo.activeProcessorCount)]
        facts["memory"] = "\(ProcessInfo.processInfo.physicalMemory / (1 << 20)) MiB"
        facts["kernel"] = (try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let output = try? Subprocess.capture(["df", "-hT", cache], allowFailure: true).output,
           let line = String(decoding: output, as: UTF8.self).split(separator: "\n").last {
            facts["disk"] = line.split(separator: " ", omittingEmptySubsequences: true).prefix(3).joined(separator: " ")
        }
        let date = ISO8601DateFormatter().string(from: Date())
        facts["date"] = date
        return facts
    }
}
