import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP relay on 127.0.0.1 in front of a server that stalls the first message POST it sees
/// (`POST …/messages`) until ``release()``: either after passing it on, so the server accepts
/// the message while the client waits for the answer (``Stall/reply``), or before, so the
/// server never sees it and the client's connection is closed on release (``Stall/request``);
/// then every later message POST is refused the same way (the client tries again at once, on a
/// new connection) until ``passPosts()``. Every other byte passes untouched, both ways.
final class StallingRelay: @unchecked Sendable {
    enum Stall { case reply, request }

    let port: UInt16
    var url: String { "http://127.0.0.1:\(port)" }
    private let target: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var armed: Stall?
    /// After a released ``Stall/request``: message POSTs are dropped, connection and all.
    private var dropping = false
    private let stalledSignal = DispatchSemaphore(value: 0)
    private let releaseSignal = DispatchSemaphore(value: 0)

    init(to target: Int) throws {
        self.target = UInt16(target)
        (listener, port) = try listenOnLoopback()
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Stops accepting (the accept loop closes the listener); connections end with their peers.
    func stop() { shutdown(listener, Int32(SHUT_RDWR)) }

    /// Stalls the next message POST.
    func arm(_ stall: Stall) { lock.withLock { armed = stall } }

    /// Waits until a POST is stalled; false when none came within `seconds`.
    func waitForStall(seconds: Int = 60) -> Bool { stalledSignal.wait(timeout: .now() + .seconds(seconds)) == .success }

    /// Lets the stalled POST go on (``Stall/reply``) or end (``Stall/request``).
    func release() { releaseSignal.signal() }

    /// Stops dropping message POSTs after a ``Stall/request``.
    func passPosts() { lock.withLock { dropping = false } }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                close(listener)
                return
            }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = loopbackAddress(port: target)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else {
                close(server)
                close(client)
                continue
            }
            let holdReplies = Gate()
            Thread.detachNewThread { [self] in pump(from: client, to: server, requests: true, gate: holdReplies) }
            Thread.detachNewThread { [self] in pump(from: server, to: client, requests: false, gate: holdReplies) }
        }
    }

    /// Holds one connection's replies while its POST is stalled.
    private final class Gate: @unchecked Sendable {
        let lock = NSLock()
        var closed = false
        let opened = DispatchSemaphore(value: 0)
        /// Pumps done; the second one closes both descriptors (never while the other uses them).
        var finished = 0
    }

    private func pump(from source: Int32, to sink: Int32, requests: Bool, gate: Gate) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        defer {
            shutdown(sink, Int32(SHUT_WR))
            shutdown(source, Int32(SHUT_RD))
            let last = gate.lock.withLock { () -> Bool in
                gate.finished += 1
                return gate.finished == 2
            }
            if last {
                close(source)
                close(sink)
            }
        }
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            let chunk = Array(buffer[0..<count])
            if requests, let stall = takeStall(chunk) {
                switch stall {
                case .request:
                    if lock.withLock({ !dropping }) {
                        stalledSignal.signal()
                        releaseSignal.wait()
                        lock.withLock { dropping = true }
                    }
                    shutdown(source, Int32(SHUT_RDWR))
                    shutdown(sink, Int32(SHUT_RDWR))
                    return
                case .reply:
                    gate.lock.withLock { gate.closed = true }
                    if !send(chunk, to: sink) { return }
                    stalledSignal.signal()
                    Thread.detachNewThread { [self] in
                        releaseSignal.wait()
                        gate.lock.withLock { gate.closed = false }
                        gate.opened.signal()
                    }
                    continue
                }
            }
            if !requests, gate.lock.withLock({ gate.closed }) { gate.opened.wait() }
            if !send(chunk, to: sink) { return }
        }
    }

    private func takeStall(_ chunk: [UInt8]) -> Stall? {
        let text = String(decoding: chunk.prefix(512), as: UTF8.self)
        guard text.hasPrefix("POST "), text.contains("/messages HTTP/1.1") else { return nil }
        return lock.withLock {
            if dropping { return .request }
            defer { armed = nil }
            return armed
        }
    }

    private func send(_ bytes: [UInt8], to fd: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }
}
