import ChatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The run's scratch directory (stores, the server's data, runtime directories, logs) and the
/// few file calls the tool needs on it.
enum Scratch {
    /// A new private directory (mode 0700, mkdtemp(3)) under $TMPDIR or /tmp.
    static func makeDirectory(_ prefix: String, in parent: String? = nil) throws(LatencyFailure) -> String {
        let base =
            parent
            ?? {
                guard let tmp = getenv("TMPDIR"), tmp.pointee != 0 else { return "/tmp" }
                return String(cString: tmp)
            }()
        var template = Array((base + "/" + prefix + "-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return mkdtemp(base) != nil
        }
        guard made else {
            throw LatencyFailure("cannot make a directory in \(base): \(String(cString: strerror(errno)))")
        }
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A directory this tool makes inside the scratch directory (mode 0700).
    static func makeSubdirectory(_ path: String) throws(LatencyFailure) {
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
            throw LatencyFailure("cannot make \(path): \(String(cString: strerror(errno)))")
        }
    }

    static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// The whole file, or nil when it cannot be read.
    static func read(_ path: String) -> [UInt8]? {
        try? Sys.readFile(path)
    }

    /// `rm -rf path`.
    static func remove(_ path: String) {
        _ = ChildProcess.run(["rm", "-rf", path])
    }
}
