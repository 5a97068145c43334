import Foundation

/// An answer Synapse 1.163.2 gave, from `Fixtures/synapse/` (Fixtures/README.md says which request).
func synapseAnswer(_ name: String) throws -> [UInt8] {
    let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures/synapse")
    return Array(try Data(contentsOf: directory.appendingPathComponent(name)))
}
