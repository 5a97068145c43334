import ChatTestSupport
import Foundation

/// The file syscalls of an `strace -f -y -s 4096 -o FILE` run, parsed, and the check that every
/// file published was made durable in the right order. With `-y` strace prints each descriptor
/// with its path (`fsync(3</s/outbox>)`), so no descriptor bookkeeping is needed here.
struct StraceLog {
    struct Call: CustomStringConvertible {
        var index: Int
        var name: String
        /// Paths the call names, resolved against their directory descriptors: for rename and
        /// link [from, to]; for open, write, fsync, unlink and mkdir [path].
        var paths: [String]
        var creates: Bool
        var line: String
        var description: String { "#\(index) \(line)" }

        /// Whether the call changes what is on disk: an open for writing or creating, a write to
        /// a file (not a pipe, socket or terminal), a sync, a new, removed or renamed name, a
        /// size, mode, owner, time or attribute change. What a `send` may do is exactly Maildir's.
        var changesDisk: Bool {
            switch name {
            case "open", "openat":
                return ["O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND"].contains { line.contains($0) }
            case "write", "pwrite64", "writev", "pwritev", "pwritev2":
                return paths.first.map { $0.hasPrefix("/") && !$0.hasPrefix("/dev/") } ?? true
            case "creat", "fsync", "fdatasync", "sync", "syncfs", "sync_file_range", "rename", "renameat", "renameat2",
                "link", "linkat", "symlink", "symlinkat", "unlink", "unlinkat", "mkdir", "mkdirat", "rmdir", "mknod",
                "mknodat",
                "truncate", "ftruncate", "fallocate", "chmod", "fchmod", "fchmodat", "chown", "fchown", "lchown",
                "fchownat",
                "utime", "utimes", "utimensat", "futimesat", "setxattr", "lsetxattr", "fsetxattr", "removexattr",
                "lremovexattr", "fremovexattr":
                return true
            default:
                return false
            }
        }
    }

    var calls: [Call] = []

    static let executable = ["/usr/bin/strace", "/bin/strace"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Whether `strace -f true` runs here (a container may forbid ptrace).
    static let works: Bool = {
        guard let executable else { return false }
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-f", "-o", "/dev/null", "true"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    /// Options every traced `chatdir` gets: LeakSanitizer cannot run under ptrace (it stops the
    /// process at exit with a fatal error, exit 1), so in an AddressSanitizer build
    /// (`.ci/sanitizers address`) the traced child checks no leaks; its other ASan options stay.
    /// Ignored by a normal build.
    static var sanitizerOptions: [String] {
        let inherited = ProcessInfo.processInfo.environment["ASAN_OPTIONS"].map { $0 + ":" } ?? ""
        return ["-E", "ASAN_OPTIONS=" + inherited + "detect_leaks=0"]
    }

    /// The options to trace every call on files and descriptors with (what ``Call/changesDisk``
    /// judges, and the reads and stats a test counts).
    static let everyFileCall = [
        "-f", "-qq", "-y", "-s", "4096", "-e", "trace=%file,%desc,fsync,fdatasync,sync,syncfs,sync_file_range,flock",
    ]

    /// The options to trace file publishing with.
    static let traceOptions = [
        "-f", "-qq", "-y", "-s", "4096",
        "-e",
        "trace=openat,open,write,fsync,fdatasync,syncfs,rename,renameat,renameat2,link,linkat,unlink,unlinkat,mkdir,mkdirat",
    ]

    init(_ text: String) {
        for raw in text.split(separator: "\n") {
            var line = Substring(raw)
            // "1234  name(" with -f -o; drop the pid.
            if let first = line.first, first.isNumber, let space = line.firstIndex(of: " ") {
                line = line[space...].drop { $0 == " " }
            }
            if line.hasPrefix("<...") || line.hasPrefix("+++") || line.hasPrefix("---") { continue }
            guard let paren = line.firstIndex(of: "(") else { continue }
            let name = String(line[..<paren])
            let unfinished = line.hasSuffix("<unfinished ...>")
            // A call that failed published nothing (these traces inject no faults into it).
            if !unfinished, let equals = line.range(of: ") = ", options: .backwards),
                line[equals.upperBound...].hasPrefix("-1")
            {
                continue
            }
            let tokens = Self.tokens(line[line.index(after: paren)...])
            var paths: [String] = []
            switch name {
            case "openat", "mkdirat", "unlinkat":
                if tokens.count >= 2 { paths = [Self.resolve(tokens[0], tokens[1])] }
            case "renameat", "renameat2", "linkat":
                if tokens.count >= 4 {
                    paths = [Self.resolve(tokens[0], tokens[1]), Self.resolve(tokens[2], tokens[3])]
                }
            case "rename", "link":
                if tokens.count >= 2 { paths = [tokens[0].text, tokens[1].text] }
            case "open", "mkdir", "unlink", "write", "fsync", "fdatasync", "syncfs":
                if let first = tokens.first { paths = [first.text] }
            case "newfstatat", "statx", "faccessat", "faccessat2", "fchmodat", "fchownat", "utimensat", "readlinkat",
                "mknodat":
                if tokens.count >= 2, tokens[0].isDescriptor, !tokens[1].isDescriptor {
                    paths = [Self.resolve(tokens[0], tokens[1])]
                } else if let first = tokens.first {
                    paths = [first.text]
                }
            case "stat", "lstat", "access", "readlink", "chmod", "chown", "lchown", "truncate", "rmdir", "creat",
                "utime", "utimes",
                "setxattr", "lsetxattr", "removexattr", "lremovexattr", "symlink", "mknod", "fstat", "read", "pread64",
                "readv",
                "pwrite64", "writev", "pwritev", "pwritev2", "close", "lseek", "fcntl", "getdents64", "flock",
                "ftruncate",
                "fallocate", "fchmod", "fchown", "fsetxattr", "fremovexattr", "sync_file_range", "ioctl", "dup", "dup2",
                "dup3":
                if let first = tokens.first { paths = [first.text] }
            case "symlinkat":
                if tokens.count >= 3 { paths = [Self.resolve(tokens[1], tokens[2])] }
            case "sync":
                paths = []
            default:
                continue
            }
            let creates = (name == "openat" || name == "open") && line.contains("O_CREAT")
            calls.append(Call(index: calls.count, name: name, paths: paths, creates: creates, line: String(line)))
        }
    }

    /// A quoted string or a descriptor's path (`3</a/b>`, `AT_FDCWD</cwd>`).
    struct Token {
        var text: String
        var isDescriptor: Bool
    }

    private static func tokens(_ arguments: Substring) -> [Token] {
        var result: [Token] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let character = arguments[index]
            if character == "\"" {
                var text = ""
                var cursor = arguments.index(after: index)
                while cursor < arguments.endIndex, arguments[cursor] != "\"" {
                    if arguments[cursor] == "\\", arguments.index(after: cursor) < arguments.endIndex {
                        cursor = arguments.index(after: cursor)
                    }
                    text.append(arguments[cursor])
                    cursor = arguments.index(after: cursor)
                }
                result.append(Token(text: text, isDescriptor: false))
                index = cursor < arguments.endIndex ? arguments.index(after: cursor) : cursor
            } else if character == "<", index > arguments.startIndex,
                arguments[arguments.index(before: index)].isNumber || arguments[arguments.index(before: index)] == "D"
            {
                let start = arguments.index(after: index)
                let end = arguments[start...].firstIndex(of: ">") ?? arguments.endIndex
                result.append(Token(text: String(arguments[start..<end]), isDescriptor: true))
                index = end < arguments.endIndex ? arguments.index(after: end) : end
            } else if character == ")" && arguments[index...].hasPrefix(") = ") {
                break // the return value follows
            } else {
                index = arguments.index(after: index)
            }
        }
        return result
    }

    private static func resolve(_ directory: Token, _ name: Token) -> String {
        if name.text.hasPrefix("/") || !directory.isDescriptor { return name.text }
        if name.text.isEmpty { return directory.text } // AT_EMPTY_PATH: the descriptor itself
        return directory.text + "/" + name.text
    }

    static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    static func baseName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    static func isTemporary(_ path: String) -> Bool {
        let name = baseName(path)
        return name.hasPrefix(".") && name.hasSuffix(".tmp")
    }

    /// An fsync of `path` in `range`, or a `syncfs` (a group commit: every file and directory
    /// of the store's file system made durable at once).
    private func fsync(of path: String, in range: Range<Int>) -> Call? {
        calls[range].first {
            (($0.name == "fsync" || $0.name == "fdatasync") && $0.paths.first == path) || $0.name == "syncfs"
        }
    }

    /// Every way a file under `root` was published out of order: a temp file renamed or linked
    /// before it was written and fsynced, a rename, link, unlink or mkdir whose directory was not
    /// fsynced after it, and an outbox file unlinked before `messages/` was fsynced after the
    /// last segment rename. Returns how many publications were checked, and the problems.
    func publishingProblems(under root: String) -> (published: Int, problems: [String]) {
        var problems: [String] = []
        var published = 0
        for call in calls where call.paths.allSatisfy({ $0.hasPrefix(root + "/") || $0 == root }) {
            let after = (call.index + 1)..<calls.count
            switch call.name {
            case "rename", "renameat", "renameat2", "link", "linkat":
                guard call.paths.count == 2 else { continue }
                let (from, to) = (call.paths[0], call.paths[1])
                // The sync worker's figures are replaced without fsync on purpose (docs/FORMAT.md).
                if Self.baseName(to) == ".sync-status" { continue }
                published += 1
                if Self.isTemporary(from) {
                    let created = calls[..<call.index].last { $0.creates && $0.paths.first == from }
                    let createdDirectory = calls[..<call.index].last {
                        ($0.name == "mkdir" || $0.name == "mkdirat") && $0.paths.first == from
                    }
                    if let created {
                        let writes = calls[created.index..<call.index].filter {
                            $0.name == "write" && $0.paths.first == from
                        }
                        if let lastWrite = writes.last {
                            if fsync(of: from, in: (lastWrite.index + 1)..<call.index) == nil {
                                problems.append(
                                    "\(call): \(from) was not fsynced between its last write (\(lastWrite)) and this")
                            }
                        } else {
                            problems.append("\(call): \(from) was never written after it was created (\(created))")
                        }
                    } else if createdDirectory == nil {
                        problems.append("\(call): \(from) was not created in this trace")
                    }
                }
                if fsync(of: Self.parent(to), in: after) == nil {
                    problems.append("\(call): \(Self.parent(to)) was never fsynced after this")
                }
            case "unlink", "unlinkat":
                guard let path = call.paths.first, !Self.isTemporary(path) else { continue }
                published += 1
                let directory = Self.parent(path)
                if fsync(of: directory, in: after) == nil {
                    problems.append("\(call): \(directory) was never fsynced after this")
                }
                if Self.baseName(directory) == "outbox", Self.baseName(path) != "read.json" {
                    let messages = Self.parent(directory) + "/messages"
                    let lastSegment = calls[..<call.index].last {
                        ["rename", "renameat", "renameat2"].contains($0.name) && $0.paths.count == 2
                            && Self.parent($0.paths[1]) == messages
                    }
                    let from = (lastSegment?.index ?? -1) + 1
                    if fsync(of: messages, in: from..<call.index) == nil {
                        problems.append(
                            "\(call): an outbox file went without an fsync of \(messages) after the segment's rename (\(lastSegment.map(\.description) ?? "none in this trace"))"
                        )
                    }
                }
            case "mkdir", "mkdirat":
                guard let path = call.paths.first else { continue }
                published += 1
                if fsync(of: Self.parent(path), in: after) == nil {
                    problems.append("\(call): \(Self.parent(path)) was never fsynced after this new directory")
                }
            default:
                continue
            }
        }
        return (published, problems)
    }
}
