import ChatTestSupport
import Testing

@testable import ChatWire

@Suite(.ownThreads) struct SHA1Tests {
    @Test(
        "Digests match the RFC 3174 test vectors and the empty message",
        arguments: [
            ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
            ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
            ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
            (String(repeating: "01234567", count: 80), "dea356a2cddd90c7a7ecedc5ebb563934f460452"),
        ])
    func vectors(message: String, digest: String) {
        #expect(hex(SHA1.hash(message.utf8)) == digest)
    }

    @Test("One million 'a' (RFC 3174 test 3) spans many blocks")
    func millionA() {
        #expect(
            hex(SHA1.hash(repeatElement(UInt8(ascii: "a"), count: 1_000_000)))
                == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    @Test(
        "Messages of 55, 56 and 64 bytes pad into one or two blocks correctly",
        arguments: [
            (55, "c1c8bbdc22796e28c0e15163d20899b65621d65a"),
            (56, "c2db330f6083854c99d4b5bfb6e8f29f201be699"),
            (64, "0098ba824b5c16427bd7a1122a5a442a25ec644d"),
        ])
    func paddingBoundaries(length: Int, digest: String) {
        #expect(hex(SHA1.hash(repeatElement(UInt8(ascii: "a"), count: length))) == digest)
    }
}
