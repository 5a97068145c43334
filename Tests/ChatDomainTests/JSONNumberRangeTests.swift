import ChatDomain
import ChatTestSupport
import Testing

/// Found by Fuzz/Targets/fuzz-json (regression input in Fuzz/corpus/fuzz-json/crash-number-overflow):
/// a number past Double's range parsed as infinity, which the writer wrote as `inf`, not JSON.
@Suite(.ownThreads) struct JSONNumberRangeTests {
    @Test(
        "a number too large for a Double is refused, not read as infinity",
        arguments: [
            "1e999", "-1e400", "[0,-0,1.5,-2e10,1E89012345673,0.1e-5]",
        ])
    func refusesOverflow(_ text: String) {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(text) }
        do { _ = try JSONParser.parse(text) } catch { #expect(error.reason.hasSuffix("cannot be represented")) }
    }

    @Test(
        "numbers at the edges of a Double's range survive the canonical writer",
        arguments: [
            "1.7976931348623157e308", "-1.7976931348623157e308", "5e-324", "1e-400", "123456789012345678901234",
        ])
    func roundTrips(_ text: String) throws {
        let value = try JSONParser.parse(text)
        let written = JSONWriter.encode(value)
        #expect(
            try JSONParser.parse(written) == value, "\(text) was written as \(String(decoding: written, as: UTF8.self))"
        )
    }
}
