import ChatDomain
import ChatTestSupport
import Foundation

@testable import ChatStore

let alice = try! UserID("alice")
let bob = try! UserID("bob")
let carol = try! UserID("carol")
let c1 = try! ConversationID("c1")

func message(_ sequence: Int, _ sender: UserID = bob, text: String? = nil) -> Message {
    var random = SplitMix64(seed: UInt64(sequence))
    return Message(
        sequence: sequence, clientMessageID: .random(using: &random), senderID: sender,
        text: text ?? "message \(sequence)", sentAt: "2026-11-29T10:00:00.000Z")
}

func makeStore(in directory: TemporaryDirectory, name: String = "store", segmentSize: Int = 10) throws -> Store {
    try Store.create(at: directory.path + "/" + name, manifest: Manifest(userID: alice, segmentSize: segmentSize))
}

/// Every regular file under `root` (relative path → bytes), skipping the lock file.
func filesUnder(_ root: String) throws -> [String: [UInt8]] {
    var result: [String: [UInt8]] = [:]
    guard let enumerator = FileManager.default.enumerator(atPath: root) else { return result }
    while let relative = enumerator.nextObject() as? String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isDirectory),
            !isDirectory.boolValue, relative != ".lock"
        {
            result[relative] = Array(try Data(contentsOf: URL(fileURLWithPath: root + "/" + relative)))
        }
    }
    return result
}
