// swift-tools-version:6.0
import PackageDescription

// Layers as modules; arrows point down only:
//   chatdir → ChatCLI → ChatSync ──→ ChatStore → ChatDomain
//                    └──→ ChatServer ─┘    └──→ ChatProtocol (both) → ChatWire, ChatDomain
// ChatSystem (the operating system: syscalls, threads, clocks) is under every module that
// needs one; it depends on nothing of ours. ChatTLS (over ChatSystem and the system OpenSSL)
// is under ChatSync and ChatServer.
// The release tuning below is passed as unsafe flags, and SwiftPM refuses a dependency whose
// products carry unsafe flags: so it is declared only when CHATDIR_RELEASE is set (as CHATDIR_FUZZ
// gates the fuzz targets), and a package that depends on chatdir, or a plain `swift build`, sees
// none of it. `make install`, .ci/release-smoke, scripts/order-file.sh and the bench's build
// commands set it; it changes `-c release` builds only. .ci/unsafe-flags checks that nothing
// unsafe is declared without it.
let releaseTuning = Context.environment["CHATDIR_RELEASE"] != nil
// Release builds of chatdir's modules reach generic types' metadata through their accessors, not by
// demangling a mangled name at the first use of each type (about 12,000 instructions per
// type at start, 21 types on `view`'s path).
let releaseSwift: [SwiftSetting] =
    releaseTuning
    ? [
        .unsafeFlags(
            ["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"], .when(configuration: .release))
    ] : []

let package = Package(
    name: "chatdir",
    products: [
        .executable(name: "chatdir", targets: ["chatdir"]),
        .library(name: "ChatStore", targets: ["ChatStore"]),
        .library(name: "ChatDomain", targets: ["ChatDomain"]),
    ],
    targets: [
        .target(name: "ChatSystem", swiftSettings: releaseSwift),
        // The system OpenSSL (libssl-dev): a system library, not a package dependency.
        // Its headers only: libssl is opened at the first TLS connection, not linked, so other commands start faster.
        .target(name: "COpenSSL"),
        // TLS for the client's streams and the server's connections; the only module that sees OpenSSL.
        .target(name: "ChatTLS", dependencies: ["COpenSSL", "ChatSystem"], swiftSettings: releaseSwift),
        // The command line as glibc hands it to the program's constructors; in the release
        // binary also the Swift runtime's argv, in place of a constructor that parses
        // /proc/self/maps at every start (Sources/CStart/CStart.c).
        // DWARF 4: valgrind 3.19 (Debian 12; callgrind is how start-up is profiled) gives up on this
        // object's DWARF 5 string offsets. The own argv needs the runtime linked statically, so it
        // comes with the rest of the release tuning.
        .target(
            name: "CStart",
            cSettings: releaseTuning
                ? [
                    .define("CHATDIR_OWN_ARGV", .when(configuration: .release)),
                    .unsafeFlags(["-gdwarf-4"], .when(configuration: .release)),
                ] : []
        ),
        .target(name: "ChatDomain", swiftSettings: releaseSwift),
        .target(name: "ChatStore", dependencies: ["ChatDomain", "ChatSystem"], swiftSettings: releaseSwift),
        .target(
            name: "ChatCLI",
            dependencies: [
                "ChatDomain", "ChatStore", "ChatProtocol", "ChatMatrix", "ChatSync", "ChatServer", "ChatSystem",
            ],
            swiftSettings: releaseSwift),
        .target(name: "ChatWire", swiftSettings: releaseSwift),
        // Wire contract v1: its models, encoder, strict decoders and endpoints, for client and server.
        .target(name: "ChatProtocol", dependencies: ["ChatDomain", "ChatWire"], swiftSettings: releaseSwift),
        // The Matrix client-server API's JSON as values: strict, bounded decoders and the request
        // bodies chatdir sends; no I/O.
        .target(name: "ChatMatrix", dependencies: ["ChatDomain"], swiftSettings: releaseSwift),
        .target(
            name: "ChatSync",
            dependencies: [
                "ChatDomain", "ChatStore", "ChatWire", "ChatProtocol", "ChatMatrix", "ChatSystem", "ChatTLS",
            ],
            swiftSettings: releaseSwift),
        .target(
            name: "ChatServer",
            dependencies: ["ChatWire", "ChatStore", "ChatDomain", "ChatProtocol", "ChatSystem", "ChatTLS"],
            swiftSettings: releaseSwift),
        // The release binary carries the Swift runtime and standard library inside it:
        // the loader then maps and relocates ten fewer libraries at every start (view: 16.9 M
        // instructions before, most of them in ld.so). The C++ library the runtime needs comes
        // from libstdc++.a too (scripts/link/libstdc++.so says how), and its unwinder from
        // libgcc_eh.a (libgcc_s.so there), so libc and libm are all that is left to bind; lld packs the binary's 30,000 relative relocations (DT_RELR,
        // glibc 2.36), which gold cannot. `--no-export-dynamic` takes back the `-export-dynamic`
        // of the toolchain's static-stdlib-args.lnk: nothing loads chatdir's symbols, and the
        // runtime's start-up `dladdr` (finding its own path) walked all 4,047 of them, 125,000
        // instructions of every command. The functions the everyday commands run are placed
        // together first in .text (scripts/link/chatdir.order, made by scripts/order-file.sh): each
        // fault on code maps the 64 KiB around it, page by page when the binary was read back from
        // disk, and scattered start-up code touched 71 such windows (view 1.71 -> 1.54 ms so read;
        // names the binary no longer has are skipped). Debug builds and tests link them as usual.
        .executableTarget(
            name: "chatdir", dependencies: ["ChatCLI", "ChatSystem", "CStart"],
            linkerSettings: releaseTuning
                ? [
                    .unsafeFlags(
                        [
                            "-static-stdlib", "-L", Context.packageDirectory + "/scripts/link", "-use-ld=lld",
                            "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic",
                            "-Xlinker",
                            "--symbol-ordering-file=" + Context.packageDirectory + "/scripts/link/chatdir.order",
                            "-Xlinker", "--no-warn-symbol-ordering",
                        ],
                        .when(configuration: .release))
                ] : []
        ),
        // Test support: a writer the crash-safety test kills with SIGKILL.
        .executableTarget(name: "store-torture", dependencies: ["ChatStore", "ChatDomain", "ChatSystem"]),
        // Test support: the crash loop over the whole path (serve with faults, send, read, retry,
        // sync --live SIGKILLed). The crash-loop test runs it short; scripts/soak-crash.sh long.
        .executableTarget(
            name: "crash-loop",
            dependencies: ["ChatServer", "ChatSync", "ChatStore", "ChatDomain", "ChatSystem", "ChatProcess"]),
        // Measures rename → redraw of the live view (BENCHMARKS.md, "Observer latency").
        .executableTarget(
            name: "observer-latency", dependencies: ["ChatCLI", "ChatStore", "ChatDomain", "ChatSystem"]),
        // Measures the chat screen through pseudo-terminals: key → input line, Enter → pending row,
        // typing across two live workers and the server (BENCHMARKS.md, "Chat screen latency").
        .executableTarget(name: "chat-latency", dependencies: ["ChatSystem"]),
        // The benchmark beside SQLite and Maildir (BENCHMARKS.md): swift run -c release chatdir-bench;
        // --only server is the server's load figures (POSTs/s, live fan-out latency).
        .executableTarget(
            name: "chatdir-bench",
            dependencies: [
                "ChatStore", "ChatDomain", "ChatSync", "ChatServer", "ChatWire", "ChatProtocol", "ChatSystem",
                "ChatProcess",
            ]),
        // Shared by the test targets only: scratch directories, the built executables, waiting
        // for an event, and the reference server in the test's own process.
        .target(
            name: "ChatTestSupport",
            dependencies: ["ChatSystem", "ChatProcess", "ChatServer", "ChatStore", "ChatDomain"],
            path: "Tests/ChatTestSupport"),
        // A child process started by ChildProcess.spawn behind Foundation's pipes and handles:
        // the tests' and crash-loop's, never Foundation's Process (see TestProcess).
        .target(name: "ChatProcess", dependencies: ["ChatSystem"], path: "Tests/ChatProcess"),
        .testTarget(name: "ChatSystemTests", dependencies: ["ChatTestSupport", "ChatSystem", "CStart"]),
        .testTarget(name: "ChatDomainTests", dependencies: ["ChatTestSupport", "ChatDomain", "ChatStore"]),
        .testTarget(
            name: "ChatStoreTests",
            dependencies: ["ChatTestSupport", "ChatStore", "ChatDomain", "ChatSystem", "store-torture"]),
        .testTarget(name: "ChatWireTests", dependencies: ["ChatTestSupport", "ChatWire"]),
        .testTarget(
            name: "ChatMatrixTests", dependencies: ["ChatTestSupport", "ChatMatrix", "ChatDomain"],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "ChatProtocolTests", dependencies: ["ChatTestSupport", "ChatProtocol", "ChatWire", "ChatDomain"]),
        .testTarget(
            name: "ChatSyncTests",
            dependencies: [
                "ChatTestSupport", "ChatSync", "ChatProtocol", "ChatMatrix", "ChatServer", "ChatWire", "ChatStore",
                "ChatDomain", "ChatSystem", "chatdir", "crash-loop",
            ]),
        .testTarget(
            name: "ChatServerTests",
            dependencies: [
                "ChatTestSupport", "ChatServer", "ChatWire", "ChatStore", "ChatDomain", "ChatSystem", "chatdir",
            ]),
        .testTarget(
            name: "ChatCLITests",
            dependencies: [
                "ChatTestSupport", "ChatCLI", "ChatServer", "ChatStore", "ChatDomain", "ChatSystem", "chatdir",
            ],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "ChatBenchTests",
            dependencies: ["ChatTestSupport", "chatdir-bench", "ChatStore", "ChatDomain", "ChatServer"]),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer targets (Fuzz/README.md), declared only when CHATDIR_FUZZ is set: they need
// `-sanitize=fuzzer` and `-parse-as-library`, so a plain `swift build` must not see them.
// Fuzz/run.sh sets it and builds them in their own scratch directory.
if Context.environment["CHATDIR_FUZZ"] != nil {
    let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
        ("fuzz-http-request", ["ChatWire"]),
        ("fuzz-http-response", ["ChatWire"]),
        ("fuzz-websocket", ["ChatWire"]),
        ("fuzz-json", ["ChatDomain"]),
        ("fuzz-segment", ["ChatStore", "ChatDomain"]),
        ("fuzz-wire", ["ChatSync", "ChatProtocol", "ChatStore", "ChatDomain"]),
        // The chat screen's key decoder is internal to ChatCLI: the target imports it @testable
        // (a debug build, as run.sh makes, is built for testing).
        ("fuzz-keys", ["ChatCLI"]),
        // The config file (internal to ChatCLI, so @testable as well) and `.sync-status`.
        ("fuzz-files", ["ChatCLI", "ChatStore"]),
        // Every decoder of the Matrix client-server API, the encoders beside them, chunked bodies.
        ("fuzz-matrix", ["ChatMatrix", "ChatWire", "ChatStore", "ChatDomain"]),
    ]
    for target in fuzzTargets {
        package.targets.append(
            .executableTarget(name: target.name, dependencies: target.dependencies, path: "Fuzz/Targets/\(target.name)")
        )
    }
}
