/// A setting's effective value and where it came from: the precedence is flag > environment >
/// config file > the store's manifest > default, the same for every setting.
struct Setting<Value> {
    var value: Value
    var origin: SettingOrigin
}

/// Where a setting's value came from, as `chatdir config` says it.
enum SettingOrigin: Equatable {
    /// A command-line option, like `--store`.
    case flag(String)
    /// An environment variable, like `CHATDIR_STORE`.
    case environment(String)
    /// The config file, `file:line`.
    case config(String)
    /// The store's `chatdir.json`.
    case manifest
    case defaultValue

    var description: String {
        switch self {
        case .flag(let name): "flag \(name)"
        case .environment(let name): "environment \(name)"
        case .config(let place): "config \(place)"
        case .manifest: "store manifest (chatdir.json)"
        case .defaultValue: "default"
        }
    }

    /// One word for `--json`: flag, environment, config, manifest or default.
    var kind: String {
        switch self {
        case .flag: "flag"
        case .environment: "environment"
        case .config: "config"
        case .manifest: "manifest"
        case .defaultValue: "default"
        }
    }

    /// The flag, variable or `file:line`; nil for the manifest and a default.
    var place: String? {
        switch self {
        case .flag(let name), .environment(let name), .config(let name): name
        case .manifest, .defaultValue: nil
        }
    }
}
