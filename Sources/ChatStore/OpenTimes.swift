import ChatSystem

/// How long `view` and `chat` took to show a conversation, for `chatdir status` ("time to
/// open"): one line per open, `<milliseconds>`, in `opens` beside the store's
/// ``RuntimeChannel`` files (tmpfs, per device, never in the store or git).
///
/// Cheap on purpose, so measuring does not slow the thing measured: one `open(O_APPEND)`, one
/// `write(2)` of a few bytes, no fsync (losing a figure loses nothing). Past ``trimSize`` bytes
/// the newest ``kept`` lines are written back by rename; two opens at that moment may lose one
/// figure.
public struct OpenTimes: Sendable {
    public let path: String
    private let directory: String
    /// Figures `recent()` gives.
    public static let kept = 100
    static let trimSize = 4096
    static let name = "opens"

    public init(_ channel: RuntimeChannel) {
        directory = channel.root
        path = channel.root + "/" + Self.name
    }

    /// Appends one open's time. Best effort: a figure that cannot be written is dropped.
    public func record(milliseconds: Int) {
        guard milliseconds >= 0 else { return }
        do throws(SystemError) {
            try RuntimeChannel.makePrivateDirectories(directory)
            let fd = try FileDescriptor.open(path, [.writeOnly, .create, .append])
            try fd.writeAll(Array("\(milliseconds)\n".utf8), path: path)
            if try fd.size(path: path) > Self.trimSize {
                let lines = recent().map { "\($0)\n" }.joined()
                try EphemeralFile.replace(Array(lines.utf8), as: Self.name, in: directory)
            }
        } catch {
            return
        }
    }

    /// The newest figures, oldest first (at most ``kept``). Lines that are not a number are skipped.
    public func recent() -> [Int] {
        guard let bytes = try? Sys.readFile(path), bytes.count <= 1 << 20 else { return [] }
        let numbers = bytes.split(separator: 0x0A).compactMap { line -> Int? in
            guard line.count <= 12, let value = Int(String(decoding: line, as: UTF8.self)), value >= 0 else { return nil }
            return value
        }
        return Array(numbers.suffix(Self.kept))
    }
}
