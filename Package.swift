// swift-tools-version:6.0
import PackageDescription

// Layers as modules; arrows point down only:
//   chatdir → ChatCLI → ChatStore → ChatDomain
let package = Package(
    name: "chatdir",
    products: [
        .executable(name: "chatdir", targets: ["chatdir"]),
        .library(name: "ChatStore", targets: ["ChatStore"]),
        .library(name: "ChatDomain", targets: ["ChatDomain"]),
    ],
    targets: [
        .target(name: "ChatDomain"),
        .target(name: "ChatStore", dependencies: ["ChatDomain"]),
        .target(name: "ChatCLI", dependencies: ["ChatDomain", "ChatStore"]),
        .target(name: "ChatWire"),
        .executableTarget(name: "chatdir", dependencies: ["ChatCLI"]),
        .executableTarget(name: "observer-latency", dependencies: ["ChatCLI", "ChatStore", "ChatDomain"]),
        .testTarget(name: "ChatDomainTests", dependencies: ["ChatDomain"]),
        .testTarget(name: "ChatStoreTests", dependencies: ["ChatStore", "ChatDomain"]),
        .testTarget(name: "ChatWireTests", dependencies: ["ChatWire"]),
        .testTarget(
            name: "ChatCLITests",
            dependencies: ["ChatCLI", "ChatStore", "ChatDomain", "chatdir"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
