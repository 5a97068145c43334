import Foundation

/// Starts a server that a test will stop and start again on the same address, on a port the
/// kernel never hands out by itself, and returns what `start` returned.
///
/// Why: a server started on port 0 gets a port from the ephemeral range
/// (`/proc/sys/net/ipv4/ip_local_port_range`, 32768–60999 here), the range every outgoing
/// connection's local port also comes from. Between `stop()` and the restart, a connection
/// made by a test running at the same time can take that very port, and the restart fails with
/// EADDRINUSE (seen under `swift test` in parallel). Below the ephemeral range only explicit
/// binds compete; `start` is tried on random such ports until one is free.
/// `isAddressInUse` tells an EADDRINUSE failure from any other (which is thrown at once).
public func startOnRestartablePort<T>(isAddressInUse: (any Error) -> Bool, _ start: (Int) throws -> T) throws -> T {
    let firstEphemeral = ephemeralPortRange().lowerBound
    let candidates = 10_000..<max(firstEphemeral, 10_001)
    var lastError: (any Error)?
    for _ in 0..<100 {
        // Never the port of another server of this process: it may be stopped for a restart.
        let port = Int.random(in: candidates)
        guard handedOut.withLock({ $0.insert(port).inserted }) else { continue }
        do {
            return try start(port)
        } catch  where isAddressInUse(error) {
            lastError = error
        }
    }
    throw lastError ?? CocoaError(.featureUnsupported)
}

/// Ports ``startOnRestartablePort(isAddressInUse:_:)`` tried in this process (a few hundred of
/// the ~22,000 below the ephemeral range per run), never handed out twice.
private let handedOut = NSLockedSet()

private final class NSLockedSet: @unchecked Sendable {
    private let lock = NSLock()
    private var ports = Set<Int>()
    func withLock<T>(_ body: (inout Set<Int>) -> T) -> T { lock.withLock { body(&ports) } }
}

/// Starts a server again on `port` after its predecessor's `stop()`, retrying EADDRINUSE for up
/// to `seconds`: a stop that waited out slow connections on a loaded machine may free the
/// listening socket a moment late.
public func restartOnSamePort<T>(
    _ port: Int, seconds: Double = 20, isAddressInUse: (any Error) -> Bool, _ start: (Int) throws -> T
) throws -> T {
    let deadline = Date().addingTimeInterval(seconds)
    while true {
        do {
            return try start(port)
        } catch  where isAddressInUse(error) && Date() < deadline {
            usleep(20_000)
        }
    }
}

/// The kernel's ephemeral port range, or Linux's default when it cannot be read.
public func ephemeralPortRange() -> ClosedRange<Int> {
    let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
    let bounds = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Int($0) }
    guard bounds.count == 2, bounds[0] <= bounds[1] else { return 32768...60999 }
    return bounds[0]...bounds[1]
}
