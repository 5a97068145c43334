/// Bytes received but not yet parsed: appended at the back, consumed from the front.
///
/// Consuming only moves a start offset; the storage is compacted when the consumed part
/// outgrows the rest, so a long-lived connection neither copies on every read nor grows forever.
struct ByteQueue: Sendable {
    private var storage: [UInt8] = []
    private var start = 0

    /// How many unconsumed bytes there are.
    var count: Int { storage.count - start }

    /// The unconsumed bytes. Index it with `startIndex + offset`, never with plain offsets.
    var bytes: ArraySlice<UInt8> { storage[start...] }

    mutating func append(contentsOf newBytes: some Sequence<UInt8>) {
        if start > 0, start >= storage.count / 2 {
            storage.removeFirst(start)
            start = 0
        }
        storage.append(contentsOf: newBytes)
    }

    /// Removes and returns the first `length` unconsumed bytes; `length` must be at most `count`.
    mutating func removeFirst(_ length: Int) -> [UInt8] {
        let removed = Array(storage[start..<start + length])
        start += length
        return removed
    }

    /// Removes and returns everything not yet consumed.
    mutating func removeAll() -> [UInt8] {
        removeFirst(count)
    }
}
