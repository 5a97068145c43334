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
        do {
            return try start(Int.random(in: candidates))
        } catch where isAddressInUse(error) {
            lastError = error
        }
    }
    throw lastError ?? CocoaError(.featureUnsupported)
}

/// The kernel's ephemeral port range, or Linux's default when it cannot be read.
public func ephemeralPortRange() -> ClosedRange<Int> {
    let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
    let bounds = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Int($0) }
    guard bounds.count == 2, bounds[0] <= bounds[1] else { return 32768...60999 }
    return bounds[0]...bounds[1]
}
