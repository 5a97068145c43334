/// One event read from an inotify descriptor: the watch it belongs to, what happened, and the
/// name inside the watched directory ("" for events on the directory itself).
public struct InotifyEvent: Hashable, Sendable {
    public var watch: Int32
    public var mask: InotifyMask
    public var cookie: UInt32
    public var name: String

    public init(watch: Int32, mask: InotifyMask, cookie: UInt32 = 0, name: String = "") {
        self.watch = watch
        self.mask = mask
        self.cookie = cookie
        self.name = name
    }

    /// The size of `struct inotify_event` before its name.
    static let headerSize = 16

    /// Parses the records `read(2)` returned: a 16-byte header `{wd, mask, cookie, len}`, then
    /// `len` NUL-padded name bytes. A truncated record at the end is dropped (the kernel never
    /// splits one, so it means a short buffer, which ``Inotify/bufferSize`` rules out).
    public static func parse(_ bytes: UnsafeRawBufferPointer) -> [InotifyEvent] {
        var events: [InotifyEvent] = []
        var offset = 0
        while offset + headerSize <= bytes.count {
            let watch = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let cookie = bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self)
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            let nameStart = offset + headerSize
            guard nameStart + length <= bytes.count else { break }
            let nameBytes = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<(nameStart + length)])
            let name = String(decoding: nameBytes.prefix(while: { $0 != 0 }), as: UTF8.self)
            events.append(InotifyEvent(watch: watch, mask: InotifyMask(rawValue: mask), cookie: cookie, name: name))
            offset = nameStart + length
        }
        return events
    }
}
