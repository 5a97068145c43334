import Foundation

// chatdir-bench: the workloads of BENCHMARKS.md on chatdir's store, side by side
// with SQLite and Maildir (bench/peers_runner.py) from the same run. See BENCHMARKS.md.

let options: BenchOptions
do {
    options = try BenchOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    let isHelp = CommandLine.arguments.contains("--help") || CommandLine.arguments.contains("-h")
    FileHandle.standardError.write(Data((error.description + "\n").utf8))
    exit(isHelp ? 0 : 64)
}

do {
    let report = try await Bench(options: options).run()
    print(report.table())
    let matrix = report.matrixTable()
    if !matrix.isEmpty { print("\n" + matrix) }
    for note in report.notes { print("\n" + note) }
    print("\n" + report.machine.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "\n"))
    if let path = options.jsonPath {
        try report.json().write(to: URL(fileURLWithPath: path))
    }
} catch {
    FileHandle.standardError.write(Data("chatdir-bench: \(error)\n".utf8))
    exit(70)
}
