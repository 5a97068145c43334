import Glibc

/// The sanitizer this test run was built with ("address" or "thread"), nil for a plain build:
/// known from the runtime linked into the test process itself (its `__asan_init` or
/// `__tsan_init`), so a test needs no variable set by a script to tell. The `chatdir` children
/// the tests run are built with the same flags.
public let sanitizer: String? = {
    let everything = UnsafeMutableRawPointer(bitPattern: 0)
    if dlsym(everything, "__asan_init") != nil { return "address" }
    if dlsym(everything, "__tsan_init") != nil { return "thread" }
    return nil
}()
