@testable import ChatCLI
import ChatStore

/// libFuzzer target for the files other processes and people write beside the store: the user's
/// config file (`ConfigFile.parse`) and the sync worker's `.sync-status` (`SyncStatusFile`).
/// The first byte picks the parser; the rest is the file. Invariants:
/// - the config parser refuses with a message that names the file, and a line of the file
///   when it names one; what it accepts has every entry on a line of the file;
/// - a status it accepts survives encode → decode unchanged, and its encoding is stable.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLocalFiles(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let all = Array(UnsafeBufferPointer(start: data, count: size))
    guard let selector = all.first else { return 0 }
    let bytes = Array(all.dropFirst())
    if selector % 2 == 0 { fuzzConfig(bytes) } else { fuzzStatus(bytes) }
    return 0
}

private let configPath = "/home/fuzz/.config/chatdir/config"

private func fuzzConfig(_ bytes: [UInt8]) {
    let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
    do {
        let config = try ConfigFile.parse(bytes, path: configPath, home: "/home/fuzz")
        var entries = config.stores.flatMap { section in [section.line] + section.entries.values.map(\.line) }
        if let store = config.defaultStore { entries.append(store.line) }
        check(entries.allSatisfy { (1...max(lines, 1)).contains($0) }, "an accepted entry on a line the file does not have")
        check(config.stores.allSatisfy { $0.path.hasPrefix("/") }, "a store section with a relative path")
    } catch {
        let message = error.message
        check(message.hasPrefix(configPath + ":"), "a refusal that does not name the file: \(message)")
        let rest = message.dropFirst(configPath.count + 1)
        if let number = Int(rest.prefix { $0.isNumber }), rest.first?.isNumber == true {
            check((1...max(lines, 1)).contains(number), "a refusal naming line \(number) of a \(lines)-line file")
        }
    }
}

private func fuzzStatus(_ bytes: [UInt8]) {
    guard case let .success(status) = SyncStatusFile.decode(bytes) else { return }
    let encoded = SyncStatusFile.encode(status)
    guard case let .success(again) = SyncStatusFile.decode(encoded) else {
        fatalError("fuzz-files invariant broken: an accepted status does not decode once encoded: \(String(decoding: encoded, as: UTF8.self))")
    }
    check(again == status, "a status changed in a round trip")
    check(SyncStatusFile.encode(again) == encoded, "the status encoding is not stable")
}

private func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("fuzz-files invariant broken: \(message())") }
}
