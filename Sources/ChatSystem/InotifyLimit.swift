#if canImport(Glibc)
    import Glibc
#endif

/// The kernel's per-user inotify limits (inotify(7), "/proc interfaces"): which one refused a
/// call, the setting that raises it, and its value now.
public enum InotifyLimit: Sendable, Hashable {
    /// `inotify_add_watch` failed with ENOSPC: the user holds `fs.inotify.max_user_watches` watches.
    case watches
    /// `inotify_init1` failed with EMFILE while the process could still open a file: the user
    /// holds `fs.inotify.max_user_instances` inotify descriptors.
    case instances
    /// ENOMEM from either call: the kernel had no memory for another watch or instance.
    case memory

    /// The limit that refused `error`, or nil when it was no inotify limit (a missing directory,
    /// no permission, a process out of descriptors). EMFILE from `inotify_init1` means either
    /// the user's instances or this process's descriptors; one probe `open(2)` tells them apart.
    public static func refusing(_ error: SystemError) -> InotifyLimit? {
        switch error.operation {
        case Inotify.addWatchOperation:
            if error.errno == .noSpace { return .watches }
            if error.errno == .noMemory { return .memory }
        case Inotify.openOperation:
            if error.errno == .tooManyOpenFiles { return canOpenDescriptor() ? .instances : nil }
            if error.errno == .noMemory { return .memory }
        default:
            break
        }
        return nil
    }

    /// The sysctl that raises it (`fs.inotify.max_user_watches`); nil for memory.
    public var setting: String? {
        switch self {
        case .watches: "fs.inotify.max_user_watches"
        case .instances: "fs.inotify.max_user_instances"
        case .memory: nil
        }
    }

    /// The same limit for the user namespace the process runs in (`user.max_inotify_watches`):
    /// a container can set it lower than the machine's, and the lower one applies.
    public var namespaceSetting: String? {
        switch self {
        case .watches: "user.max_inotify_watches"
        case .instances: "user.max_inotify_instances"
        case .memory: nil
        }
    }

    /// ``setting``'s value now (from /proc/sys); nil when it cannot be read.
    public var value: Int? { setting.flatMap(Self.read) }

    /// ``namespaceSetting``'s value now; nil when it cannot be read.
    public var namespaceValue: Int? { namespaceSetting.flatMap(Self.read) }

    /// Reads the integer a sysctl holds, from its file under /proc/sys.
    private static func read(_ setting: String) -> Int? {
        let path = "/proc/sys/" + setting.replacing(".", with: "/")
        guard let bytes = try? Sys.readFile(path) else { return nil }
        var text = String(decoding: bytes, as: UTF8.self)
        while text.last?.isWhitespace == true { text.removeLast() }
        return Int(text)
    }

    /// Whether this process can open one more descriptor now (it opens and closes `/`).
    private static func canOpenDescriptor() -> Bool {
        let fd = Glibc.open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        Glibc.close(fd)
        return true
    }
}
