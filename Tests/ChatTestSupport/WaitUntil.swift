import Foundation
import Testing

// The one way a test waits for something to happen: poll a condition with a generous deadline,
// never a fixed sleep standing in for the event. Three spellings of the same loop:
//
//     try waitUntil("alice's socket is registered") { hub.count == 1 }        // fails the test
//     try await waitUntil("the server holds 3 messages") { try await server.messages("ab").count == 3 }
//     #expect(waitUntil { follow.output.count == 3 }, "the three stored rows")  // the caller asserts
//
// The first two record "timed out waiting until …" at the caller's line and throw, so the test
// stops where the wait failed; the third returns whether the condition held, for `#expect` with
// a message of the caller's, or for a wait whose timing out is not a failure.

/// How often a condition is checked: often enough that a wait costs little past the event, rarely
/// enough that a busy machine running the whole suite is not kept busier.
private let pollInterval: Duration = .milliseconds(10)

/// A ``waitUntil(_:timeout:sourceLocation:_:)`` whose condition never held.
public struct WaitTimedOut: Error, CustomStringConvertible {
    public var what: String
    public var timeout: Duration
    public var description: String { "timed out after \(timeout) waiting until \(what)" }
}

/// Checks `condition` every few milliseconds (or every `interval`, for a check that costs a
/// process) until it holds; returns false if it still does not after `timeout`. For
/// `#expect(waitUntil { … })`, where the caller's expectation says what failed.
@discardableResult
public func waitUntil(
    timeout: Duration = .seconds(60), checkingEvery interval: Duration? = nil, _ condition: () throws -> Bool
) rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: (interval ?? pollInterval).seconds)
    }
    return try condition()
}

/// Checks `condition` every few milliseconds until it holds; after `timeout` records
/// "timed out waiting until `what`" at the caller's line and throws ``WaitTimedOut``.
///
/// Disfavoured so that in async code the async form below is chosen even for a condition that
/// does not await: it sleeps between checks without holding one of the cooperative pool's few
/// threads. Synchronous code can only call this one.
@_disfavoredOverload
public func waitUntil(
    _ what: String, timeout: Duration = .seconds(60), sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () throws -> Bool
) throws {
    guard try waitUntil(timeout: timeout, condition) else { throw timedOut(what, timeout, sourceLocation) }
}

/// ``waitUntil(_:timeout:sourceLocation:_:)`` for a condition that awaits (an actor's state, a
/// request to a server); it sleeps between checks without holding a thread.
public func waitUntil(
    _ what: String, timeout: Duration = .seconds(60), sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: pollInterval)
    }
    guard try await condition() else { throw timedOut(what, timeout, sourceLocation) }
}

private func timedOut(_ what: String, _ timeout: Duration, _ sourceLocation: SourceLocation) -> WaitTimedOut {
    let error = WaitTimedOut(what: what, timeout: timeout)
    Issue.record(Comment(rawValue: error.description), sourceLocation: sourceLocation)
    return error
}

extension Duration {
    fileprivate var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
