import ChatSystem
import Testing

/// Waits until a change made now in the directory `probe` gets a ctime later than `changed`
/// (nanoseconds since 1970): on a kernel whose file timestamps are coarse (before Linux 6.13),
/// two changes in one tick can carry the same time. Probes by making and removing a directory
/// in `probe` (which must exist), never with a fixed sleep; records an issue after 10 s.
public func waitForFileSystemClock(
    past changed: Int128, probing probe: String, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let deadline = Clock.monotonicMilliseconds() + 10_000
    while Clock.monotonicMilliseconds() < deadline {
        try Sys.mkdir(probe + "/probe")
        try Sys.removeDirectory(probe + "/probe")
        if let probed = Sys.changeStamp(of: probe)?.changed, probed > changed { return }
    }
    Issue.record("the file system's clock never passed \(changed)", sourceLocation: sourceLocation)
}
