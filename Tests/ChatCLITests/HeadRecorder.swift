import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A listener on 127.0.0.1 that records the head of every request it gets, byte for byte, and
/// answers each with the same response (401 unless told): what a server would see of a
/// request, header injection included.
final class HeadRecorder: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var heads: [String] = []

    /// Every request head received so far, start line and header lines, CRLF kept.
    var receivedHeads: [String] { lock.withLock { heads } }
    var url: String { "http://127.0.0.1:\(port)" }

    private let answer: [UInt8]

    /// `status` and `headers` make the one answer every request gets.
    init(status: String = "401 Unauthorized", headers: [String] = [], body: String = #"{"error":"unknown token"}"#) throws {
        answer = Array((["HTTP/1.1 \(status)", "Content-Length: \(body.utf8.count)", "Connection: close"] + headers).joined(separator: "\r\n").utf8)
            + Array("\r\n\r\n\(body)".utf8)
        (listener, port) = try listenOnLoopback()
        Thread { [self] in acceptLoop() }.start()
    }

    /// Wakes the accept loop, which closes the listener itself.
    func stop() { shutdown(listener, Int32(SHUT_RDWR)) }

    deinit { stop() }

    private func acceptLoop() {
        defer { close(listener) }
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 { return }
            Thread { [self] in serve(client) }.start()
        }
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: received, as: UTF8.self).contains("\r\n\r\n") {
            let count = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return }
            received += chunk[0..<count]
        }
        let text = String(decoding: received, as: UTF8.self)
        let head = text.components(separatedBy: "\r\n\r\n")[0] + "\r\n"
        lock.withLock { heads.append(head) }
        _ = answer.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}
