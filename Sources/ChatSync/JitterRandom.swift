import ChatStore

/// The random numbers that jitter backoffs: ``SplitMix64`` seeded once from the system's source.
///
/// Not `SystemRandomNumberGenerator()` passed `&random`: that generator is a struct of size zero,
/// and a value of size zero has no address of its own. Under ThreadSanitizer an inout access to
/// one is instrumented at an address that belongs to no caller, so two live workers reconnecting
/// at once were reported as racing on it, and one run's `chatdir sync --live` died of a SEGV in
/// TSan's shadow memory for that address (LiveConnectionState.streamEnded, 2026-12-06). This
/// generator has eight bytes of state on the caller's stack. Jitter needs spread, not secrecy;
/// tokens and IDs still come straight from the system's source.
struct JitterRandom: RandomNumberGenerator {
    // Seeded at the first number: most events draw none, and each seed reads /dev/urandom.
    private lazy var mix = SplitMix64(seed: UInt64.random(in: .min ... .max))

    mutating func next() -> UInt64 { mix.next() }
}
