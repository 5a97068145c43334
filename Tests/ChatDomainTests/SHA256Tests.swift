import ChatDomain
import Foundation
import Testing

@Suite struct SHA256Tests {
    @Test(
        "the FIPS 180-4 examples and block-boundary lengths hash as published",
        arguments: [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
        ])
    func published(_ input: String, _ digest: String) {
        #expect(SHA256.hex(Array(input.utf8)) == digest)
    }

    @Test("a million a's hash as published (many blocks)")
    func million() {
        #expect(
            SHA256.hex([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("every length from 0 to 130 bytes agrees with sha256sum (padding across block ends)")
    func agreesWithCoreutils() throws {
        var generator = SystemRandomNumberGenerator()
        var inputs: [[UInt8]] = []
        for length in 0...130 {
            inputs.append((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sha256-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var paths: [String] = []
        for (index, input) in inputs.enumerated() {
            let path = directory.appendingPathComponent("\(index)").path
            try Data(input).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = paths
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let digests = printed.split(separator: "\n").map { String($0.prefix(64)) }
        #expect(digests.count == inputs.count)
        for (input, digest) in zip(inputs, digests) {
            #expect(SHA256.hex(input) == digest, "length \(input.count)")
        }
    }
}
