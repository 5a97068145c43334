import ChatSystem
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Puts programs in the page-cache state a binary has once the kernel has read it back from
/// disk, so both sides of a process row start the same way.
///
/// How a file came into the page cache changes what each start costs. Written with write(2)
/// (as `install` and `cp` write it), a file is held in large folios; read back from disk through
/// the faults of `exec` and the loader, or written through mmap as lld writes its output, in
/// 4 KiB ones, which the kernel maps and unmaps page by page, 64 KiB around every fault. For
/// the 24 MB chatdir binary that was 0.25-0.3 ms of a 1.5 ms `view` (BENCHMARKS.md, "Process
/// start"); for the sqlite3 shell, whose code is a tenth of that, little.
/// Evicting the programs' own files before the warm-up run makes every measured start the
/// read-back-from-disk one, whatever built, copied or installed them last.
enum PageCache {
    /// Drops `paths`' clean, unmapped pages from the page cache (posix_fadvise DONTNEED after an
    /// fsync); the next start reads them back from disk. Files mapped by a running process (libc)
    /// keep their pages; that is the same for both sides. Returns the paths it could not open.
    @discardableResult
    static func evict(_ paths: [String]) -> [String] {
        var failed: [String] = []
        for path in paths {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                failed.append(path)
                continue
            }
            _ = fsync(descriptor)
            _ = posix_fadvise(descriptor, 0, 0, Int32(POSIX_FADV_DONTNEED))
            close(descriptor)
        }
        return failed
    }

    /// `program` and the shared libraries `ldd` says it loads.
    static func programFiles(_ program: String) -> [String] {
        guard let listing = try? Subprocess.capture(["ldd", program], allowFailure: true).output else {
            return [program]
        }
        let libraries = String(decoding: listing, as: UTF8.self).split(separator: "\n").compactMap { line -> String? in
            // "\tlibsqlite3.so.0 => /lib/x86_64-linux-gnu/libsqlite3.so.0 (0x…)" or "\t/lib64/ld-linux-x86-64.so.2 (0x…)"
            let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            if let arrow = words.firstIndex(of: "=>"), arrow + 1 < words.count, words[arrow + 1].hasPrefix("/") {
                return words[arrow + 1]
            }
            if let first = words.first?.trimmingCharacters(in: .whitespaces), first.hasPrefix("/") { return first }
            return nil
        }
        return [program] + libraries
    }
}
