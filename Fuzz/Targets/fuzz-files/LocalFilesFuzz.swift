@testable import ChatCLI
@testable import ChatStore

/// libFuzzer target for the files other processes and people write beside the store: the user's
/// config file (`ConfigFile.parse`), the sync worker's `.sync-status` (`SyncStatusFile`) and
/// `.invitations` (`InvitationsFile`) and `.started` (`StartedFile`);
/// and the fast readers of two files other devices write, `positions.json` and
/// `conversation.json` (`decodeCanonical`), as a wire v1 and a Matrix store read them. The
/// first byte picks the parser; the rest is the file. Invariants:
/// - the config parser refuses with a message that names the file, and a line of the file
///   when it names one; what it accepts has every entry on a line of the file;
/// - a status it accepts survives encode → decode unchanged, and its encoding is stable;
/// - invitations it accepts encode to a file it accepts, whose encoding is stable;
/// - the started entries it reads encode to a file that reads as the same entries (the newest
///   ``StartedFile/maxEntries`` of them);
/// - what a fast reader accepts, the full decoder reads the same with no error, and it is the
///   writer's own bytes for that value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLocalFiles(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let all = Array(UnsafeBufferPointer(start: data, count: size))
    guard let selector = all.first else { return 0 }
    let bytes = Array(all.dropFirst())
    switch selector % 6 {
    case 0: fuzzConfig(bytes)
    case 1: fuzzStatus(bytes)
    case 2: fuzzPositions(bytes)
    case 3: fuzzInfo(bytes)
    case 4: fuzzInvitations(bytes)
    default: fuzzStarted(bytes)
    }
    return 0
}

private let configPath = "/home/fuzz/.config/chatdir/config"

private func fuzzConfig(_ bytes: [UInt8]) {
    let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
    do {
        let config = try ConfigFile.parse(bytes, path: configPath, home: "/home/fuzz")
        var entries = config.stores.flatMap { section in [section.line] + section.entries.values.map(\.line) }
        if let store = config.defaultStore { entries.append(store.line) }
        check(
            entries.allSatisfy { (1...max(lines, 1)).contains($0) },
            "an accepted entry on a line the file does not have")
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
    guard case .success(let status) = SyncStatusFile.decode(bytes) else { return }
    let encoded = SyncStatusFile.encode(status)
    guard case .success(let again) = SyncStatusFile.decode(encoded) else {
        fatalError(
            "fuzz-files invariant broken: an accepted status does not decode once encoded: \(String(decoding: encoded, as: UTF8.self))"
        )
    }
    check(again == status, "a status changed in a round trip")
    check(SyncStatusFile.encode(again) == encoded, "the status encoding is not stable")
}

private func fuzzInvitations(_ bytes: [UInt8]) {
    guard let invitations = InvitationsFile.decode(bytes) else { return }
    let encoded = InvitationsFile.encode(invitations)
    guard let again = InvitationsFile.decode(encoded) else {
        fatalError(
            "fuzz-files invariant broken: accepted invitations do not decode once encoded: \(String(decoding: encoded, as: UTF8.self))"
        )
    }
    check(again.count <= invitations.count, "encoding invitations made more of them")
    check(InvitationsFile.encode(again) == encoded, "the invitations encoding is not stable")
}

private func fuzzStarted(_ bytes: [UInt8]) {
    let entries = StartedFile.decode(bytes)
    let encoded = StartedFile.encode(entries)
    let again = StartedFile.decode(encoded)
    let kept = entries.suffix(StartedFile.maxEntries)
    check(
        again.map(\.queued) == kept.map(\.queued) && again.map(\.folder) == kept.map(\.folder),
        "started entries changed in a round trip")
    check(StartedFile.encode(again) == encoded, "the started encoding is not stable")
}

private func fuzzPositions(_ bytes: [UInt8]) {
    // Both protocols: a Matrix store's fast reader takes Matrix user IDs and delivered 0 only.
    for storeProtocol in [StoreProtocol.wire, .matrix] {
        guard let fast = PositionsFile.decodeCanonical(bytes, protocol: storeProtocol) else { continue }
        let full = PositionsFile.decode(bytes, path: "positions.json", protocol: storeProtocol)
        check(
            full.problems.isEmpty,
            "a canonical \(storeProtocol) positions file the full decoder reports on: \(full.problems)")
        check(full.positions == fast, "the two positions readers disagree")
        check(PositionsFile.encode(fast) == bytes, "accepted positions that are not the writer's bytes")
    }
}

private func fuzzInfo(_ bytes: [UInt8]) {
    for storeProtocol in [StoreProtocol.wire, .matrix] {
        guard let fast = ConversationInfo.decodeCanonical(bytes, protocol: storeProtocol) else { continue }
        let full = ConversationInfo.decode(bytes, path: "conversation.json", protocol: storeProtocol)
        check(
            !full.problems.contains { $0.severity == .error },
            "a canonical \(storeProtocol) conversation.json the full decoder refuses: \(full.problems)")
        check(full.info == fast, "the two conversation.json readers disagree")
        check(fast.encode() == bytes, "an accepted conversation.json that is not the writer's bytes")
    }
}

private func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("fuzz-files invariant broken: \(message())") }
}
