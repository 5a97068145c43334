import ChatSystem
import Testing

@Suite struct InotifyEventTests {
    @Test("event records parse from the kernel's byte layout, names NUL-padded")
    func parse() {
        var bytes: [UInt8] = []
        func append(_ wd: Int32, _ mask: UInt32, _ name: String, padTo: Int) {
            withUnsafeBytes(of: wd.littleEndian) { bytes.append(contentsOf: $0) }
            withUnsafeBytes(of: mask.littleEndian) { bytes.append(contentsOf: $0) }
            withUnsafeBytes(of: UInt32(0)) { bytes.append(contentsOf: $0) }
            withUnsafeBytes(of: UInt32(padTo).littleEndian) { bytes.append(contentsOf: $0) }
            var nameBytes = Array(name.utf8)
            nameBytes += [UInt8](repeating: 0, count: padTo - nameBytes.count)
            bytes += nameBytes
        }
        append(3, InotifyMask.movedTo.rawValue, "a.json", padTo: 16)
        append(-1, InotifyMask.overflow.rawValue, "", padTo: 0)
        let events = bytes.withUnsafeBytes { InotifyEvent.parse($0) }
        #expect(
            events == [
                InotifyEvent(watch: 3, mask: .movedTo, name: "a.json"), InotifyEvent(watch: -1, mask: .overflow),
            ])
    }
}
