import ChatDomain

/// Reads and writes `positions.json`: one member per line, sorted by user ID. In a Matrix store
/// the members are Matrix user IDs and `deliveredUpTo` stays 0: Matrix has no delivered receipt,
/// and a tick is never claimed without one.
public enum PositionsFile {
    public static func encode(_ positions: Positions) -> [UInt8] {
        var writer = JSONWriter()
        writer.raw("{\n")
        for (index, entry) in positions.entries.enumerated() {
            if index > 0 { writer.raw(",\n") }
            let position = entry.position
            writer.write(entry.member.rawValue)
            writer.raw(":{")
            writer.key("deliveredUpTo")
            writer.write(position.deliveredUpTo)
            writer.raw(",")
            writer.key("readUpTo")
            writer.write(position.readUpTo)
            writer.raw("}")
        }
        writer.raw(positions.isEmpty ? "}\n" : "\n}\n")
        return writer.bytes
    }

    /// Positions from a file in exactly the layout ``encode(_:)`` writes, read without a JSON
    /// tree (what opening a conversation reads every time); nil for anything else, which
    /// ``decode(_:path:protocol:)`` then reads and reports on. Checked by encoding the result
    /// again and by `storeProtocol`'s rules: a file this accepts is one
    /// ``decode(_:path:protocol:)`` reads the same, with no problem.
    public static func decodeCanonical(_ bytes: [UInt8], protocol storeProtocol: StoreProtocol = .wire) -> Positions? {
        let positions: Positions? = bytes.withUnsafeBufferPointer { buffer in
            var cursor = ByteCursor(bytes: buffer, index: 0, end: buffer.count)
            guard cursor.literal("{\n") else { return nil }
            var entries: [Positions.Entry] = []
            while cursor.literal("\"") {
                guard let name = cursor.plainString(), let user = UserID(utf8: name),
                    StoreProtocol(of: user) == storeProtocol,
                    cursor.literal(":{\"deliveredUpTo\":"), let delivered = cursor.number(),
                    cursor.literal(",\"readUpTo\":"), let read = cursor.number(), cursor.literal("}"),
                    storeProtocol == .wire || delivered == 0
                else { return nil }
                entries.append(
                    Positions.Entry(member: user, position: MemberPosition(deliveredUpTo: delivered, readUpTo: read)))
                if cursor.literal(",\n") { continue }
                guard cursor.literal("\n") else { return nil }
                break
            }
            guard cursor.literal("}\n"), cursor.index == buffer.count else { return nil }
            return Positions(entries: entries)
        }
        guard let positions, encode(positions) == bytes else { return nil }
        return positions
    }

    /// Reads positions; members with problems are left out and reported. `storeProtocol` is the
    /// store's (wire v1 unless told), whose user IDs the members must be; nil takes either kind,
    /// for the merge driver, which has no manifest at hand.
    public static func decode(_ bytes: [UInt8], path: String, protocol storeProtocol: StoreProtocol? = .wire) -> (
        positions: Positions, problems: [StoreProblem]
    ) {
        var problems: [StoreProblem] = []
        guard let value = parseWholeFile(bytes, path: path, problems: &problems) else { return (Positions(), problems) }
        guard case .object(let members) = value else {
            problems.append(
                StoreProblem(path: path, line: 1, "expected a JSON object of members, found \(value.typeDescription)"))
            return (Positions(), problems)
        }
        let lines = lineRanges(bytes)
        func line(of key: String) -> Int? {
            let prefix = Array(("\"" + key + "\"").utf8)
            return lines.firstIndex { bytes[$0].starts(with: prefix) }.map { $0 + 1 }
        }
        var positions: [UserID: MemberPosition] = [:]
        for member in members {
            let memberLine = line(of: member.key)
            guard let user = try? UserID(member.key) else {
                problems.append(
                    StoreProblem(
                        path: path, line: memberLine,
                        "\(quoted(member.key)) is not a valid user ID; remove or rename it"))
                continue
            }
            if let storeProtocol, let reason = storeProtocol.userIDProblem(user) {
                problems.append(StoreProblem(path: path, line: memberLine, "\(reason); remove or rename it"))
                continue
            }
            guard
                var reader = RecordReader(
                    member.value, what: "a position", path: path, line: memberLine, label: "\(user): ",
                    problems: &problems)
            else { continue }
            let delivered = reader.integer("deliveredUpTo", atLeast: 0)
            let read = reader.integer("readUpTo", atLeast: 0)
            reader.rejectUnknownKeys(["deliveredUpTo", "readUpTo"])
            if storeProtocol ?? StoreProtocol(of: user) == .matrix, let delivered, delivered != 0 {
                reader.problem(
                    "\"deliveredUpTo\" is \(delivered), but Matrix has no delivered receipts, so a Matrix store keeps it 0; set it to 0"
                )
            }
            problems.append(contentsOf: reader.problems)
            if let delivered, let read, reader.problems.isEmpty {
                positions[user] = MemberPosition(deliveredUpTo: delivered, readUpTo: read)
            }
        }
        let result = Positions(positions)
        if problems.isEmpty, encode(result) != bytes {
            problems.append(
                StoreProblem(
                    path: path, line: nil,
                    "not in canonical form (one member per line, sorted, no spaces); readers cope, but devices will not hold identical bytes",
                    severity: .warning))
        }
        return (result, problems)
    }
}
