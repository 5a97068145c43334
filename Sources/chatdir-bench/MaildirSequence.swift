import ChatDomain
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The Maildir peer's durable write (bench/peers_runner.py, `MaildirPeer.queue` and `save`) done
/// in this process, so the durable rows can also be measured by turns with chatdir's own write:
/// file in `tmp/` created, written, fsynced and closed; renamed into the folder; the folder
/// fsynced. The two fsyncs are the floor of a durable new file, and on this VM's disk their cost
/// moves by 2-3× from one minute to the next (BENCHMARKS.md, "Durable writes"), more than the
/// peer runner's figures, taken a minute or two after chatdir's, can tell apart from the code.
struct MaildirSequence {
    let root: String

    /// A Maildir under `root` (made anew): `tmp/` and the folders files are renamed into.
    init(root: String) throws {
        self.root = root
        Subprocess.removeTree(root)
        for folder in ["tmp", "outbox", "c1"] {
            try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
    }

    /// `MaildirPeer.queue`: a pending message's JSON line into `outbox/`.
    mutating func queue(_ text: String) throws {
        let id = UUID().uuidString
        try write(
            Array("{\"clientMessageId\": \"\(id)\", \"text\": \"\(text)\"}\n".utf8), named: id, into: "outbox",
            as: Self.padded(Stats.now(), 20) + "-" + id + ".json")
    }

    /// `MaildirPeer.save` of one message: its JSON into `c1/` under its sequence number.
    mutating func save(_ message: Message) throws {
        let line =
            "{\"clientMessageId\":\"\(message.clientMessageID)\",\"sender\":\"\(message.senderID)\",\"sentAt\":\"\(message.sentAt)\",\"sequence\":\(message.sequence),\"text\":\"\(message.text)\"}\n"
        try write(
            Array(line.utf8), named: message.clientMessageID.description, into: "c1",
            as: Self.padded(UInt64(message.sequence), 10) + ".json")
    }

    /// `value` in decimal, zero-padded to `width` digits (Python's "%020d").
    static func padded(_ value: UInt64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private mutating func write(_ bytes: [UInt8], named staged: String, into folder: String, as name: String) throws {
        let temp = root + "/tmp/" + staged
        let file = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard file >= 0 else { throw Subprocess.Failure(description: "maildir: cannot create \(temp): errno \(errno)") }
        let written = bytes.withUnsafeBytes { Glibc.write(file, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(file) == 0, close(file) == 0 else {
            throw Subprocess.Failure(description: "maildir: cannot write \(temp): errno \(errno)")
        }
        let target = root + "/" + folder + "/" + name
        guard rename(temp, target) == 0 else {
            throw Subprocess.Failure(description: "maildir: cannot rename to \(target): errno \(errno)")
        }
        let directory = open(root + "/" + folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0, fsync(directory) == 0 else {
            throw Subprocess.Failure(description: "maildir: cannot fsync \(folder): errno \(errno)")
        }
        close(directory)
    }
}
