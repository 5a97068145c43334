import ChatSystem

/// A file that holds a secret (a token, a password): its bytes only when others cannot read
/// it, since a secret others can read is none.
enum SecretFile {
    /// The bytes of `file`. Throws `missing` when there is no such file, 77 naming the mode and
    /// the `chmod` that fixes it when group or others may read it, 77 when it cannot be read.
    static func read(_ file: String, missing: CommandFailure) throws -> [UInt8] {
        guard let mode = Sys.mode(of: file) else { throw missing }
        guard mode & 0o077 == 0 else {
            throw CommandFailure(
                message:
                    "\(file) can be read by others (mode \(String(mode, radix: 8))); run `chmod 600 \(file)` first",
                exitCode: 77)
        }
        do { return try Sys.readFile(file) } catch {
            throw CommandFailure(message: error.description, exitCode: 77)
        }
    }
}
