import ChatSystem

/// What this process knows of the newest ordinal in the outboxes it sent into, so that a
/// long-lived sender (the bench, the chat screen) need not list `outbox/` for every send.
///
/// An entry is written under the outbox lock right after this process's own send: the ordinal
/// it made, with the stamp of the locked directory (``FileChangeStamp``: device, inode, mtime,
/// ctime) taken after its change. The next send, under the lock, trusts it only when the stamp
/// is unchanged (nobody made, removed or renamed a name since), its clock is past the
/// remembered ordinal, and the wall clock has not been stepped back since (its offset to the
/// monotonic clock did not shrink). Then no ordinal at or past the clock is in the outbox and
/// the new ordinal is the clock's, exactly what a listing gives. Otherwise it lists. A first
/// send into an outbox only notes that it was here: `chatdir send`, one send per process, never
/// pays for a stamp. Bounded: past ``limit`` outboxes it starts again from nothing.
/// docs/ARCHITECTURE.md, "The newest ordinal", says what a coarse file system clock leaves open.
final class OutboxMemory: Sendable {
    /// The one table of this process (tests make their own, one per process they stand for).
    static let shared = OutboxMemory()

    /// Outboxes remembered at most.
    static let limit = 64

    struct Entry: Sendable, Equatable {
        /// The directory after this process's last send; nil after the first, which took none.
        var stamp: FileChangeStamp?
        /// The ordinal of that send (the newest in the outbox then).
        var newest: UInt64
        /// The wall clock's offset to the monotonic clock then (``OutboxMemory/clockOffset()``).
        var clockOffset: Int64
    }

    private struct Table: Sendable {
        var entries: [String: Entry] = [:]
        /// Sends that used a remembered ordinal instead of a listing (for tests).
        var trusted = 0
    }

    private let table = Lock(Table())

    init() {}

    func entry(for directory: String) -> Entry? {
        table.withLock { $0.entries[directory] }
    }

    func remember(_ entry: Entry, for directory: String) {
        table.withLock { table in
            if table.entries[directory] == nil, table.entries.count >= Self.limit {
                table.entries.removeAll(keepingCapacity: true)
            }
            table.entries[directory] = entry
        }
    }

    func forget(_ directory: String) {
        _ = table.withLock { $0.entries.removeValue(forKey: directory) }
    }

    func countTrusted() {
        table.withLock { $0.trusted += 1 }
    }

    /// How many sends used a remembered ordinal instead of listing.
    var trustedCount: Int { table.withLock { $0.trusted } }

    /// How far the clock offset may shrink and still count as the same: two reads of two
    /// clocks are some nanoseconds apart, more when the thread was preempted between them.
    static let clockOffsetTolerance: Int64 = 1_000_000

    /// Whether `entry` still gives the newest ordinal: the directory's `stamp` now, the sender's
    /// clock `now` and the clock offset now (read under the outbox lock).
    static func trusts(_ entry: Entry, stamp: FileChangeStamp, now: UInt64, clockOffset: Int64) -> Bool {
        entry.stamp == stamp && now > entry.newest && clockOffset >= entry.clockOffset &- clockOffsetTolerance
    }

    /// CLOCK_REALTIME minus CLOCK_MONOTONIC, in nanoseconds: the same while the wall clock runs
    /// (NTP slews both alike), smaller after the wall clock was stepped back (a manual set, a
    /// leap second), larger after a step forward or a suspend. The wall clock is read first, so
    /// a delay between the two reads makes it smaller (a listing), within
    /// ``clockOffsetTolerance`` of a step back of the same size.
    static func clockOffset() -> Int64 {
        let wall = Clock.nanosecondsSince1970()
        let monotonic = Clock.monotonicNanoseconds()
        return Int64(bitPattern: wall &- monotonic)
    }
}
