import ChatSystem

/// How long `view` and `chat` took to show a conversation, for `chatdir status` ("time to
/// open"): one line per open, `<milliseconds>` to the microsecond (`0.312`, `18`), in `opens` beside the store's
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

    /// Appends one open's time, kept to the microsecond: a small conversation opens in well under
    /// a millisecond, which whole milliseconds would record as 0. Best effort: a figure that
    /// cannot be written is dropped, and a channel that is refused is returned, for the caller
    /// to say once.
    @discardableResult
    public func record(milliseconds: Double) -> SystemError? {
        guard milliseconds >= 0, milliseconds.isFinite else { return nil }
        do throws(SystemError) {
            guard let directory = try channel.directory([], create: true) else { return nil }
            let size = try directory.append(Array((Self.text(milliseconds) + "\n").utf8), to: Self.name)
            if size > Self.trimSize {
                let lines = recent().map { Self.text($0) + "\n" }.joined()
                try directory.replace(Self.name, with: Array(lines.utf8))
            }
            return nil
        } catch {
            return error
        }
    }

    /// The newest figures in milliseconds, oldest first (at most ``kept``). Lines that are not
    /// a number are skipped (whole milliseconds, as earlier versions wrote them, read as such).
    public func recent() -> [Double] {
        guard let directory = try? channel.directory([], create: false),
            let bytes = try? directory.read(Self.name, limit: 1 << 20)
        else { return [] }
        let numbers = bytes.split(separator: 0x0A).compactMap { line -> Double? in
            guard line.count <= 16, line.allSatisfy({ $0 == UInt8(ascii: ".") || (0x30...0x39).contains($0) }),
                let value = Double(String(decoding: line, as: UTF8.self)), value.isFinite
            else { return nil }
            return value
        }
        return Array(numbers.suffix(Self.kept))
    }

    /// `milliseconds` to the microsecond, without trailing zeros: `0.312`, `18.5`, `18`.
    static func text(_ milliseconds: Double) -> String {
        let microseconds = Int((milliseconds * 1000).rounded())
        var fraction = String(microseconds % 1000)
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(microseconds / 1000)" + (fraction.isEmpty ? "" : "." + fraction)
    }
}
