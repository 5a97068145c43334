/// Lowercase hex of bytes, so that digests read like the RFC test vectors.
func hex(_ bytes: [UInt8]) -> String {
    bytes.map { ($0 < 0x10 ? "0" : "") + String($0, radix: 16) }.joined()
}
