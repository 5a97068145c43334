import ChatWire
import Testing

@testable import ChatSync

/// The one classification of a server's answer, for API requests and the live upgrade alike.
@Suite struct ResponseVerdictTests {
    @Test(
        "statuses of a request's answer",
        arguments: [
            (200, ResponseVerdict.success), (201, .success), (204, .success),
            (401, .unauthorized), (400, .rejected), (403, .rejected), (404, .rejected), (409, .rejected),
            (408, .temporary(retryAfter: nil)), (429, .temporary(retryAfter: nil)), (500, .temporary(retryAfter: nil)),
            (503, .temporary(retryAfter: nil)),
            (101, .unexpected), (302, .unexpected), (600, .unexpected),
        ] as [(Int, ResponseVerdict)])
    func request(_ status: Int, _ expected: ResponseVerdict) {
        #expect(ResponseVerdict(status: status, headers: [:]) == expected)
    }

    @Test(
        "statuses of the live upgrade's answer: only 101 succeeds",
        arguments: [
            (101, ResponseVerdict.success), (200, .unexpected), (401, .unauthorized), (404, .rejected),
            (503, .temporary(retryAfter: nil)),
        ] as [(Int, ResponseVerdict)])
    func upgrade(_ status: Int, _ expected: ResponseVerdict) {
        #expect(ResponseVerdict(status: status, headers: [:], success: 101...101) == expected)
    }

    @Test(
        "a Retry-After is clamped the same way wherever it comes from",
        arguments: [
            ("2", Duration.seconds(2)), (" 7\t", .seconds(7)), ("-5", .zero), ("999999999", .seconds(3600)),
            ("soon", nil),
        ] as [(String, Duration?)])
    func retryAfterClamp(_ header: String, _ expected: Duration?) {
        #expect(ResponseVerdict.retryAfter(header: header) == expected)
        #expect(ResponseVerdict(status: 429, headers: ["Retry-After": header]) == .temporary(retryAfter: expected))
        #expect(
            ResponseVerdict(status: 503, headers: ["Retry-After": header], success: 101...101)
                == .temporary(retryAfter: expected))
    }
}
