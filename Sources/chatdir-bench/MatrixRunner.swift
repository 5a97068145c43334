import Foundation

/// The bridge to bench/matrix_runner.py (`--only matrix`): a Synapse from the virtual
/// environment the Matrix tests use, chatdir's release binary and the minimal clients of
/// bench/matrix_pager.py (and the matrix-nio client of bench/matrix_nio_pager.py, when
/// matrix-nio is installed), timed in the same run; the JSON it prints becomes the "chatdir",
/// "matrix-pager" and "matrix-nio" figures of the Matrix table (BENCHMARKS.md, "Matrix").
struct MatrixRunner {
    var python: String
    var script: String
    var workdir: String
    var virtualEnvironment: String
    var chatdir: String
    /// A Python that imports matrix-nio, or nil: the nio row is not run.
    var nioPython: String?

    /// The virtual environment Synapse is installed in: `$CHATDIR_SYNAPSE_VENV`, else where
    /// scripts/install-synapse.sh puts it (as the Matrix tests look for it).
    static func virtualEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let path = environment["CHATDIR_SYNAPSE_VENV"], !path.isEmpty { return path }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.cache/chatdir/synapse-venv"
    }

    var synapsePython: String { virtualEnvironment + "/bin/python" }

    /// The Python of the virtual environment scripts/install-matrix-nio.sh makes
    /// (`$CHATDIR_NIO_VENV`, else `~/.cache/chatdir/nio-venv`) when it imports nio; else nil
    /// and why, naming the script.
    static func nioPython(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> (
        python: String?, skipped: String?
    ) {
        let venv =
            environment["CHATDIR_NIO_VENV"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.cache/chatdir/nio-venv"
        let python = venv + "/bin/python"
        let probe =
            FileManager.default.isExecutableFile(atPath: python)
            ? try? Subprocess.capture([python, "-c", "import nio"], allowFailure: true) : nil
        guard probe?.status == 0 else {
            return (
                nil,
                "Matrix row against matrix-nio skipped: no \(python) that imports nio; scripts/install-matrix-nio.sh installs it, or set CHATDIR_NIO_VENV"
            )
        }
        return (python, nil)
    }

    /// Why the Matrix workloads cannot run here, or nil when Synapse imports.
    func skipReason() -> String? {
        guard FileManager.default.isExecutableFile(atPath: synapsePython) else {
            return
                "Matrix rows skipped: Synapse is not installed (no \(synapsePython)); scripts/install-synapse.sh installs it, or set CHATDIR_SYNAPSE_VENV"
        }
        let probe = try? Subprocess.capture([synapsePython, "-c", "import synapse"], allowFailure: true)
        guard probe?.status == 0 else {
            return "Matrix rows skipped: \(synapsePython) cannot import synapse; scripts/install-synapse.sh installs it"
        }
        return nil
    }

    /// Runs the script: first syncs by turns with the pager `runs` times each, `live` live
    /// messages for each side. Side ("chatdir", "matrix-pager", "matrix-nio") → figure name → value.
    func run(runs: Int, live: Int) throws -> (figures: [String: [String: Double]], meta: [String: Any]) {
        let arguments =
            [
                python, script, "--workdir", workdir, "--synapse-python", synapsePython, "--chatdir", chatdir,
                "--python", python, "--runs", String(runs), "--live", String(live),
            ] + (nioPython.map { ["--nio-python", $0] } ?? [])
        let output = try Subprocess.capture(arguments, passStderr: true).output
        guard let object = try JSONSerialization.jsonObject(with: output) as? [String: Any] else {
            throw Subprocess.Failure(description: "\(script) printed something other than a JSON object")
        }
        var figures: [String: [String: Double]] = [:]
        for (side, name) in [("chatdir", "chatdir"), ("pager", "matrix-pager"), ("nio", "matrix-nio")] {
            let table = object[side] as? [String: Any] ?? [:]
            figures[name] = Dictionary(
                uniqueKeysWithValues: table.compactMap { key, value in
                    (value as? NSNumber).map { ("matrix_" + key, $0.doubleValue) }
                })
        }
        return (figures, object["meta"] as? [String: Any] ?? [:])
    }
}
