import Foundation

/// The processes that hold an end of the pipe `fd` belongs to, as "pid command line" lines:
/// for a test whose pipe does not reach its end when the writer exited, to name whoever else
/// still holds the write end (an inherited descriptor). Read from /proc; best effort.
public func pipeHolders(of fd: Int32) -> [String] {
    var status = stat()
    guard fstat(fd, &status) == 0 else { return ["fstat failed: errno \(errno)"] }
    let wanted = "pipe:[\(status.st_ino)]"
    let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    var holders: [String] = []
    for pid in processes where pid.allSatisfy(\.isNumber) {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        let holding = descriptors.filter {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) == wanted
        }
        guard !holding.isEmpty else { continue }
        let commandLine =
            (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))).map {
                String(decoding: $0.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
            } ?? "?"
        holders.append("\(pid) fds \(holding.joined(separator: ",")): \(commandLine)")
    }
    return holders
}
