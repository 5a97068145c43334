import ChatDomain
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The client side of wire contract v1 over HTTP (URLSession), one method per endpoint.
///
/// Every request has a real deadline (URLSession's own timeout is an idle timeout in whole
/// seconds), every answer is classified as ``SyncError`` (temporary, rejected, unauthorized,
/// bad response) and every body is validated by ``WireDecoder`` before a caller sees it.
/// The token goes into the Authorization header and nowhere else.
public struct APIClient: Sendable {
    public let baseURL: URL
    private let token: String
    private let session: URLSession
    /// How long one request may take from start to the last byte of the answer.
    public var timeout: Duration
    /// Answers larger than this are refused (a hostile server cannot exhaust memory).
    public static let maxBodySize = 8 << 20

    public init(baseURL: URL, token: String, timeout: Duration = .seconds(10)) {
        self.baseURL = baseURL
        self.token = token
        self.timeout = timeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.httpMaximumConnectionsPerHost = 4
        session = URLSession(configuration: configuration)
    }

    public func me() async throws(SyncError) -> UserID {
        try WireDecoder.userID(try await send("GET", "/v1/me").body)
    }

    public func conversations() async throws(SyncError) -> [WireConversation] {
        try WireDecoder.conversations(try await send("GET", "/v1/conversations").body)
    }

    /// Which page of messages to ask for.
    public enum Page: Sendable, Equatable {
        case after(Int)
        case before(Int)
        case newest
    }

    public func messages(_ id: ConversationID, _ page: Page, limit: Int = 500) async throws(SyncError) -> MessagesPage {
        var query = "limit=\(limit)"
        switch page {
        case let .after(sequence): query = "after=\(sequence)&" + query
        case let .before(sequence): query = "before=\(sequence)&" + query
        case .newest: break
        }
        let result = try WireDecoder.messagesPage(try await send("GET", "/v1/conversations/\(id)/messages?" + query).body)
        for message in result.items {
            switch page {
            case let .after(sequence) where message.sequence <= sequence,
                 let .before(sequence) where message.sequence >= sequence:
                throw .badResponse("the page for \(page) holds sequence \(message.sequence)")
            default: break
            }
        }
        return result
    }

    /// Delivers one message. Returns the accepted message and whether it was new (201) or
    /// already accepted earlier with this client message ID (200).
    public func post(_ id: ConversationID, clientMessageID: ClientMessageID, text: String) async throws(SyncError) -> (message: Message, created: Bool) {
        let body = JSONWriter.encode(.object([("clientMessageId", .string(clientMessageID.rawValue)), ("text", .string(text))]))
        let answer = try await send("POST", "/v1/conversations/\(id)/messages", body: body)
        let value = try WireDecoder.parse(answer.body, what: "the accepted message")
        let message = try WireDecoder.message(value, what: "the accepted message")
        guard message.clientMessageID == clientMessageID, message.text == text else {
            throw .badResponse("the server answered a POST with another message (\(message.clientMessageID))")
        }
        return (message, answer.status == 201)
    }

    public func receipts(_ id: ConversationID) async throws(SyncError) -> Positions {
        try WireDecoder.receipts(try await send("GET", "/v1/conversations/\(id)/receipts").body)
    }

    public func delivered(_ id: ConversationID, upTo sequence: Int) async throws(SyncError) -> Int {
        let body = JSONWriter.encode(.object([("upToSequence", .integer(sequence))]))
        return try WireDecoder.position(try await send("POST", "/v1/conversations/\(id)/delivered", body: body).body, key: "deliveredUpTo")
    }

    public func read(_ id: ConversationID, upTo sequence: Int) async throws(SyncError) -> Int {
        let body = JSONWriter.encode(.object([("upToSequence", .integer(sequence))]))
        return try WireDecoder.position(try await send("POST", "/v1/conversations/\(id)/read", body: body).body, key: "readUpTo")
    }

    // MARK: - Transport

    struct Answer {
        var status: Int
        var body: [UInt8]
    }

    func send(_ method: String, _ path: String, body: [UInt8]? = nil) async throws(SyncError) -> Answer {
        guard let url = URL(string: path, relativeTo: baseURL) else { throw .badResponse("cannot make a URL of \(path)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.timeoutInterval = max(1, timeout.seconds.rounded(.up))
        if let body {
            request.httpBody = Data(body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await withDeadline(request)
        guard let http = response as? HTTPURLResponse else { throw .badResponse("not an HTTP answer") }
        guard data.count <= Self.maxBodySize else { throw .badResponse("an answer of \(data.count) bytes is over the \(Self.maxBodySize)-byte limit") }
        let bytes = [UInt8](data)
        switch http.statusCode {
        case 200..<300:
            return Answer(status: http.statusCode, body: bytes)
        case 401:
            throw .unauthorized(WireDecoder.errorMessage(bytes))
        case 408, 429, 500..<600:
            let retryAfter = (http.value(forHTTPHeaderField: "Retry-After")).flatMap(Int.init).map { Duration.seconds(min(max($0, 0), 3600)) }
            throw .temporary("\(method) \(path): \(http.statusCode) \(WireDecoder.errorMessage(bytes))", retryAfter: retryAfter)
        case 400..<500:
            throw .rejected(status: http.statusCode, message: WireDecoder.errorMessage(bytes))
        default:
            throw .badResponse("unexpected status \(http.statusCode) for \(method) \(path)")
        }
    }

    /// Runs the request, giving up after ``timeout`` whatever libcurl does.
    private func withDeadline(_ request: URLRequest) async throws(SyncError) -> (Data, URLResponse) {
        let session = session
        let timeout = timeout
        let description = "\(request.httpMethod ?? "GET") \(request.url?.path ?? "")"
        do {
            return try await withThrowingTaskGroup(of: (Data, URLResponse)?.self) { group in
                group.addTask { try await session.data(for: request) }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let result = first else {
                    throw SyncError.temporary("\(description): no answer within \(timeout.seconds)s", retryAfter: nil)
                }
                return result
            }
        } catch let error as SyncError {
            throw error
        } catch let error as URLError {
            if [.cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet].contains(error.code) {
                throw .unreachable("\(description): \(error.localizedDescription)")
            }
            throw .temporary("\(description): \(error.localizedDescription) (\(error.code.rawValue))", retryAfter: nil)
        } catch is CancellationError {
            throw .temporary("\(description): cancelled", retryAfter: nil)
        } catch {
            throw .temporary("\(description): \(error.localizedDescription)", retryAfter: nil)
        }
    }
}
