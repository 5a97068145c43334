import ChatTestSupport
import Testing

@testable import ChatWire

@Suite(.ownThreads) struct Base64Tests {
    static let rfc4648Vectors = [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
    ]

    @Test("Encoding matches the RFC 4648 §10 vectors", arguments: rfc4648Vectors)
    func encode(plain: String, encoded: String) {
        #expect(Base64.encode(plain.utf8) == encoded)
    }

    @Test("Decoding inverts the RFC 4648 §10 vectors", arguments: rfc4648Vectors)
    func decode(plain: String, encoded: String) {
        #expect(Base64.decode(encoded) == Array(plain.utf8))
    }

    @Test("Every byte value survives a round trip, including + and / in the output")
    func allBytesRoundTrip() {
        let bytes = (0...255).map(UInt8.init)
        let encoded = Base64.encode(bytes)
        #expect(encoded.contains("+") && encoded.contains("/"))
        #expect(Base64.decode(encoded) == bytes)
    }

    @Test(
        "Decoding rejects anything but canonical padded base64",
        arguments: [
            "Zg", // missing padding
            "Zg=", // length not a multiple of 4
            "Z===", // three padding characters
            "Zg==Zg==", // padding before the end
            "Zm9v\nYmFy", // line break
            "Zm9v YmFy", // space
            "Zm9-", // URL-safe alphabet
            "Zh==", // non-zero bits after the last byte
            "Zm9=", // non-zero bits after the last two bytes
            "====",
            "Zm9vYmF€",
        ])
    func rejectsInvalid(text: String) {
        #expect(Base64.decode(text) == nil)
    }
}
