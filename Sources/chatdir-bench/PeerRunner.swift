import Foundation

/// The bridge to bench/peers_runner.py: runs it with this run's sizes and mode, its work
/// directory under the cache, and reads the JSON it prints (figures per peer).
struct PeerRunner {
    var python: String
    var script: String
    var workdir: String

    /// The script given, or bench/`name` found from the working directory or from the
    /// executable (.build/<config>/chatdir-bench → the package root); `option` is the flag
    /// that gives it.
    static func locate(_ given: String?, name: String = "peers_runner.py", option: String = "--peers") throws -> String
    {
        if let given { return given }
        var candidates = [FileManager.default.currentDirectoryPath + "/bench/" + name]
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = executable.deletingLastPathComponent()
        for _ in 0..<4 {
            directory = directory.deletingLastPathComponent()
            candidates.append(directory.path + "/bench/" + name)
        }
        guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw Subprocess.Failure(
                description:
                    "bench/\(name) not found (looked in \(candidates.joined(separator: ", "))); run from the package root or pass \(option) PATH"
            )
        }
        return found
    }

    /// Peer name ("sqlite", "maildir", "meta") → figure name → value.
    typealias Figures = [String: [String: Double]]

    func run(sizes: [Int], quick: Bool, maildirMax: Int, extraArguments: [String] = []) throws -> (
        figures: Figures, meta: [String: Any]
    ) {
        var arguments = [
            python, script, "--workdir", workdir, "--sizes", sizes.map(String.init).joined(separator: ","),
            "--maildir-max", String(maildirMax),
        ]
        if quick { arguments.append("--quick") }
        arguments += extraArguments
        let output = try Subprocess.capture(arguments, passStderr: true).output
        guard let object = try JSONSerialization.jsonObject(with: output) as? [String: Any] else {
            throw Subprocess.Failure(description: "\(script) printed something other than a JSON object")
        }
        var figures: Figures = [:]
        for (peer, value) in object {
            guard let table = value as? [String: Any], peer != "meta" else { continue }
            figures[peer] = table.compactMapValues { ($0 as? NSNumber)?.doubleValue }
        }
        return (figures, object["meta"] as? [String: Any] ?? [:])
    }
}
