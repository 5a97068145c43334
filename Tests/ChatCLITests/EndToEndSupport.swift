import ChatTestSupport
import Foundation
import Testing

/// Reads `handle` on a thread of its own until its end, handing over each complete line (without
/// its newline) as it arrives, then calls `ended`: for children that keep running.
func readLines(
    of handle: FileHandle, _ line: @escaping @Sendable (String) -> Void, ended: @escaping @Sendable () -> Void = {}
) {
    Thread.detachNewThread {
        var pending = Data()
        while true {
            let data = handle.availableData
            if data.isEmpty { break }
            pending.append(data)
            while let newline = pending.firstIndex(of: 0x0A) {
                line(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                pending.removeSubrange(pending.startIndex...newline)
            }
        }
        ended()
    }
}

/// Copies a committed store (SampleData or a fixture) into `directory` and returns its path.
func copyStore(_ source: URL, into directory: TemporaryDirectory, as name: String = "store") throws -> String {
    let target = directory.url.appendingPathComponent(name)
    try FileManager.default.copyItem(at: source, to: target)
    return target.path
}

/// Every file under `root` with its bytes, for "nothing was changed" assertions.
func snapshotFiles(_ root: String) throws -> [String: Data] {
    var result: [String: Data] = [:]
    let base = URL(fileURLWithPath: root)
    guard let enumerator = FileManager.default.enumerator(at: base, includingPropertiesForKeys: [.isRegularFileKey])
    else { return result }
    for case let url as URL in enumerator
    where (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true {
        let relative = String(url.path.dropFirst(base.path.count + 1))
        result[relative] = try Data(contentsOf: url)
    }
    return result
}
