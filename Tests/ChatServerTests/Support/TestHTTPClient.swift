import ChatDomain
import ChatServer
import ChatSystem
import ChatTestSupport
import ChatWire

struct ConnectionClosed: Error, CustomStringConvertible {
    var description: String { "the server closed the connection without a (complete) response" }
}

struct ResponseTimedOut: Error, CustomStringConvertible {
    var description: String { "no response within the timeout" }
}

/// One response as the test client read it.
struct TestResponse {
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed as JSON; `.null` when it is not JSON (the test then fails on its field).
    var json: JSONValue { (try? JSONParser.parse(body)) ?? .null }
}

/// A raw-socket HTTP/1.1 client over one keep-alive connection: writes exactly the bytes a test
/// gives it (malformed ones included) and reads responses with ChatWire's head parser.
final class TestHTTPClient {
    private let socket: FileDescriptor
    var fd: Int32 { socket.rawValue }
    private var received: [UInt8] = []

    init(port: Int) throws {
        socket = try Socket.connect(host: "127.0.0.1", port: port)
    }

    func send(_ bytes: [UInt8]) throws {
        try Socket.sendAll(fd, bytes)
    }

    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    /// Sends a request and reads its response. `token` nil sends no Authorization header.
    func request(
        _ method: String, _ target: String, token: String? = TestData.token("alice"), body: String? = nil,
        headers: [(String, String)] = []
    ) throws -> TestResponse {
        try send(Self.requestBytes(method, target, token: token, body: body, headers: headers))
        return try readResponse()
    }

    static func requestBytes(
        _ method: String, _ target: String, token: String? = TestData.token("alice"), body: String? = nil,
        headers: [(String, String)] = []
    ) -> [UInt8] {
        var allHeaders: HTTPHeaders = ["Host": "127.0.0.1"]
        if let token { allHeaders.add(name: "Authorization", value: "Bearer \(token)") }
        for (name, value) in headers { allHeaders.add(name: name, value: value) }
        if body != nil { allHeaders.add(name: "Content-Type", value: "application/json") }
        // Tests write well-formed headers; a line break here is a bug in the test itself.
        return try! HTTPRequest(
            method: method, target: HTTPRequestTarget(target), headers: allHeaders, body: Array((body ?? "").utf8)
        ).serialized()
    }

    /// POSTs a message to `conversation` and returns the response.
    func post(_ conversation: String, id: String, text: String, as user: String = "alice") throws -> TestResponse {
        try request(
            "POST", "/v1/conversations/\(conversation)/messages", token: TestData.token(user),
            body: Self.messageBody(id: id, text: text))
    }

    static func messageBody(id: String, text: String) -> String {
        String(
            decoding: JSONWriter.encode(.object([("clientMessageId", .string(id)), ("text", .string(text))])),
            as: UTF8.self)
    }

    /// Reads one whole response (head and Content-Length body).
    /// - Throws: ``ConnectionClosed`` if the server closes first, ``ResponseTimedOut`` after `timeoutMilliseconds`.
    func readResponse(timeoutMilliseconds: Int = 15_000) throws -> TestResponse {
        let deadline = Clock.monotonicMilliseconds() + timeoutMilliseconds
        while true {
            var parser = HTTPResponseHeadParser()
            parser.feed(received)
            if let (head, remainder) = try parser.parse() {
                let length = Int(head.headers["Content-Length"] ?? "0") ?? 0
                if remainder.count >= length {
                    received = Array(remainder.dropFirst(length))
                    return TestResponse(
                        status: head.status.code, headers: head.headers, body: Array(remainder.prefix(length)))
                }
            }
            guard try readMore(until: deadline) else { throw ConnectionClosed() }
        }
    }

    /// Whether the server closes the connection (EOF or reset) within `timeoutMilliseconds`,
    /// discarding anything it sends first.
    func closes(withinMilliseconds timeoutMilliseconds: Int = 15_000) -> Bool {
        let deadline = Clock.monotonicMilliseconds() + timeoutMilliseconds
        do {
            while try readMore(until: deadline) {}
            return true
        } catch let error as SystemError {
            return error.isDisconnect
        } catch {
            return false
        }
    }

    /// Whether no byte has arrived (nor the end of the connection) so far: a look, never a wait.
    func hasReceivedNothing() -> Bool {
        guard received.isEmpty, let ready = try? Poll.wait([fd], timeoutMilliseconds: 0) else { return false }
        return !ready[0].readable && !ready[0].hungUp
    }

    /// Reads what arrives before `deadline`; false at EOF. Throws ``ResponseTimedOut`` at the deadline.
    private func readMore(until deadline: Int) throws -> Bool {
        let now = Clock.monotonicMilliseconds()
        guard now < deadline else { throw ResponseTimedOut() }
        let ready = try Poll.wait([fd], timeoutMilliseconds: deadline - now)
        guard ready[0].readable || ready[0].hungUp else { return try readMore(until: deadline) }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = try Socket.receive(fd, into: &buffer)
        guard count > 0 else { return false }
        received += buffer[0..<count]
        return true
    }
}

extension JSONValue {
    var array: [JSONValue] {
        if case .array(let values) = self { return values }
        return []
    }

    var int: Int? {
        if case .integer(let value) = self { return value }
        return nil
    }

    var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }
}

extension Optional where Wrapped == JSONValue {
    var int: Int? { self?.int }
    var string: String? { self?.string }
    var bool: Bool? { self?.bool }
    var array: [JSONValue] { self?.array ?? [] }
}
