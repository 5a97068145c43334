import ChatDomain
import ChatProtocol
import ChatServer
import ChatSystem
import ChatWire

/// One keep-alive HTTP/1.1 connection to the bench's server that POSTs messages, one request
/// at a time: the load generator of ``PostLoad`` and the poster of ``FanOut``.
final class KeepAliveClient {
    private let socket: FileDescriptor
    private var fd: Int32 { socket.rawValue }
    private let token: String
    private var received: [UInt8] = []
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    init(port: Int, token: String) throws {
        socket = try Socket.connect(host: "127.0.0.1", port: port)
        self.token = token
    }

    /// POSTs `text` to `conversation` under a fresh client message ID; the status and the body
    /// once the whole answer is read.
    func post(conversation: ConversationID, text: String) throws -> (status: Int, body: [UInt8]) {
        let body = WireEncoder.postedMessage(PostedMessage(clientMessageID: .random(), text: text))
        let endpoint = Endpoint.postMessage(conversation)
        let request = HTTPRequest(
            method: endpoint.method, target: HTTPRequestTarget(endpoint.path),
            headers: ["Host": "127.0.0.1", "Authorization": "Bearer \(token)", "Content-Type": "application/json"],
            body: body)
        try Socket.sendAll(fd, request.serialized())
        while true {
            var parser = HTTPResponseHeadParser()
            parser.feed(received)
            if let (head, remainder) = try parser.parse() {
                let length = Int(head.headers["Content-Length"] ?? "0") ?? 0
                if remainder.count >= length {
                    received = Array(remainder.dropFirst(length))
                    return (head.status.code, Array(remainder.prefix(length)))
                }
            }
            let count = try Socket.receive(fd, into: &buffer)
            guard count > 0 else { throw Subprocess.Failure(description: "the server closed the connection") }
            received += buffer[0..<count]
        }
    }
}
