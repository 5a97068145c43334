import ChatSystem

/// How long `view` and `chat` took to show a conversation, for `chatdir status` ("time to
/// open"): one line per open, `<milliseconds>`, in `opens` beside the store's
/// ``RuntimeChannel`` files (tmpfs, per device, never in the store or git).
///
/// Cheap on purpose, so measuring does not slow the thing measured: one `open(O_APPEND)`, one
/// `write(2)` of a few bytes, no fsync (losing a figure loses nothing). Past ``trimSize`` bytes
/// the newest ``kept`` lines are written back by rename; two opens at that moment may lose one
/// figure.
///
/// The file is reached through the channel's checked directories and never through a symlink
/// (``PrivateDirectory``): a planted `opens` link cannot make `view` append to another file.
public struct OpenTimes: Sendable {
    public let path: String
    private let channel: RuntimeChannel
    /// Figures `recent()` gives.
    public static let kept = 100
    static let trimSize = 4096
    static let name = "opens"

    public init(_ channel: RuntimeChannel) {
        self.channel = channel
        path = channel.root + "/" + Self.name
    }

    /// Appends one open's time. Best effort: a figure that cannot be written is dropped, and a
    /// channel that is refused is returned, for the caller to say once.
    @discardableResult
    public func record(milliseconds: Int) -> SystemError? {
        guard milliseconds >= 0 else { return nil }
        do throws(SystemError) {
            guard let directory = try channel.directory([], create: true) else { return nil }
            let size = try directory.append(Array("\(milliseconds)\n".utf8), to: Self.name)
            if size > Self.trimSize {
                let lines = recent().map { "\($0)\n" }.joined()
                try directory.replace(Self.name, with: Array(lines.utf8))
            }
            return nil
        } catch {
            return error
        }
    }

    /// The newest figures, oldest first (at most ``kept``). Lines that are not a number are skipped.
    public func recent() -> [Int] {
        guard let directory = try? channel.directory([], create: false),
              let bytes = try? directory.read(Self.name, limit: 1 << 20) else { return [] }
        let numbers = bytes.split(separator: 0x0A).compactMap { line -> Int? in
            guard line.count <= 12, let value = Int(String(decoding: line, as: UTF8.self)), value >= 0 else { return nil }
            return value
        }
        return Array(numbers.suffix(Self.kept))
    }
}
