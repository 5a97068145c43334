import ChatTestSupport
import Testing

@testable import ChatDomain

/// A hostile input (a server's answer, a hand-edited file) must be refused or parsed quickly,
/// never hold the caller: caps per container, and duplicate keys found with a hash set.
@Suite(.ownThreads) struct JSONLimitsTests {
    /// `{"key0":0,"key1":0,…}` with `count` distinct keys.
    static func object(keys count: Int) -> [UInt8] {
        var text = "{"
        text.reserveCapacity(count * 12)
        for index in 0..<count {
            if index > 0 { text += "," }
            text += "\"key\(index)\":0"
        }
        return Array((text + "}").utf8)
    }

    @Test("an object with more keys than the cap is refused, naming the cap")
    func objectCap() {
        let bytes = Self.object(keys: JSONParser.Limits.default.maxMembers + 1)
        do {
            _ = try JSONParser.parse(bytes)
            Issue.record("\(bytes.count) bytes with one key too many were accepted")
        } catch {
            #expect(error.reason == "an object has more than \(JSONParser.Limits.default.maxMembers) keys")
        }
    }

    @Test("an answer of one object with 500,000 keys (6 MiB) is refused at the cap")
    func halfMillionKeysRefused() {
        let bytes = Self.object(keys: 500_000)
        #expect(bytes.count > 6_000_000 && bytes.count < 8 << 20)
        do {
            _ = try JSONParser.parse(bytes)
            Issue.record("500,000 keys were accepted")
        } catch {
            #expect(error.reason.contains("more than \(JSONParser.Limits.default.maxMembers) keys"))
        }
    }

    @Test("500,000 distinct keys parse when the caller raises the cap (duplicates found by hashing)")
    func halfMillionKeysParse() throws {
        let bytes = Self.object(keys: 500_000)
        let value = try JSONParser.parse(bytes, limits: JSONParser.Limits(maxMembers: 500_000))
        guard case .object(let members) = value else {
            Issue.record("not an object")
            return
        }
        #expect(members.count == 500_000)
        #expect(members.last?.key == "key499999")
    }

    /// An object of `keys` keys with `key<repeated>` given once more at the end must be refused,
    /// naming that key.
    static func expectRepeatRefused(keys: Int, repeated: Int) {
        var text = String(decoding: object(keys: keys).dropLast(), as: UTF8.self)
        text += ",\"key\(repeated)\":1}"
        do {
            _ = try JSONParser.parse(text)
            Issue.record("the duplicate key\(repeated) among \(keys) keys was accepted")
        } catch {
            #expect(error.reason == "the key \"key\(repeated)\" appears twice in one object")
        }
    }

    @Test("a duplicate key far from its first occurrence is still found")
    func distantDuplicate() {
        Self.expectRepeatRefused(keys: 5_000, repeated: 17)
    }

    @Test(
        "a repeated key is found in objects below, at and past the size where the parser starts hashing keys",
        arguments: [2, 15, 16, 17, 40])
    func duplicateAroundTheHashingThreshold(keys: Int) {
        for repeated in [0, keys / 2, keys - 1] {
            Self.expectRepeatRefused(keys: keys, repeated: repeated)
            #expect((try? JSONParser.parse(Self.object(keys: keys))) != nil)
        }
    }

    @Test("an array with more elements than the cap is refused, naming the cap")
    func arrayCap() {
        let text = "[" + Array(repeating: "0", count: 101).joined(separator: ",") + "]"
        do {
            _ = try JSONParser.parse(Array(text.utf8), limits: JSONParser.Limits(maxElements: 100))
            Issue.record("the array was accepted")
        } catch {
            #expect(error.reason == "an array has more than 100 elements")
        }
        #expect((try? JSONParser.parse(Array(text.utf8), limits: JSONParser.Limits(maxElements: 101))) != nil)
    }

    @Test("nesting past the cap is refused, naming the cap")
    func depthCap() {
        do {
            _ = try JSONParser.parse(String(repeating: "[", count: 65) + String(repeating: "]", count: 65))
            Issue.record("65 levels were accepted")
        } catch {
            #expect(error.reason == "nesting deeper than 64 levels")
        }
    }

    @Test("parsing stops with a clear reason once the caller's deadline has passed")
    func deadline() {
        let bytes = Self.object(keys: 5_000)
        do {
            _ = try JSONParser.parse(bytes, deadline: .now - .seconds(1))
            Issue.record("parsing went on past the deadline")
        } catch {
            #expect(error.reason == "parsing did not finish before the deadline")
        }
        #expect((try? JSONParser.parse(bytes, deadline: .now + .seconds(600))) != nil)
    }

    @Test(
        "a small answer is decoded even when the deadline passed while it was read: the deadline cuts long decodes, not short ones"
    )
    func smallAnswerPastDeadline() throws {
        // A loaded machine can deliver a 140-byte answer at its deadline; refusing it as
        // "did not finish decoding" turned a good answer into a retry (seen in parallel runs).
        let accepted = Array(
            #"{"sequence":7,"clientMessageId":"6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3","sentAt":"2026-12-01T10:00:00Z"}"#
                .utf8)
        let value = try JSONParser.parse(accepted, deadline: .now - .seconds(1))
        #expect(value["sequence"] == .integer(7))
    }
}
