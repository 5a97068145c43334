import ChatDomain
import ChatProtocol
import ChatSync

/// How long the sync takes to refuse (or parse) an 8 MiB answer built to be slow to decode:
/// one object with hundreds of thousands of keys, one array of millions of elements. Each is
/// decoded the way the sync decodes a messages page (``WireDecoder``, with a request deadline).
enum HostileJSON {
    struct Figures {
        /// One object of ~8 MiB of distinct keys: refused at the key cap.
        var keysRefusedMilliseconds: Double
        /// The same object with the key cap raised past its size: parsed whole (the hash set's cost).
        var keysParsedMilliseconds: Double
        var keys: Int
        /// `{"items":[0,0,…]}` of ~8 MiB: refused at the element cap.
        var arrayRefusedMilliseconds: Double
    }

    static let targetSize = 8 << 20

    /// `{"key0":0,"key1":0,…}` just under `targetSize` bytes.
    static func manyKeys() -> (bytes: [UInt8], keys: Int) {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        bytes.reserveCapacity(targetSize)
        var keys = 0
        while bytes.count < targetSize - 32 {
            if keys > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += Array("\"key\(keys)\":0".utf8)
            keys += 1
        }
        bytes.append(UInt8(ascii: "}"))
        return (bytes, keys)
    }

    static func longArray() -> [UInt8] {
        let count = (targetSize - 32) / 2
        return Array("{\"items\":[".utf8) + Array(repeating: Array("0,".utf8), count: count).flatMap { $0 }
            + Array("0],\"hasMore\":false}".utf8)
    }

    static func measure() -> Figures {
        let (object, keys) = manyKeys()
        let array = longArray()
        let deadline = ContinuousClock.now + .seconds(10)
        let refusedKeys = Stats.seconds { try? WireDecoder.messagesPage(object, deadline: deadline) }
        let parsedKeys = Stats.seconds {
            try? JSONParser.parse(object, limits: JSONParser.Limits(maxMembers: keys), deadline: deadline)
        }
        let refusedArray = Stats.seconds { try? WireDecoder.messagesPage(array, deadline: deadline) }
        return Figures(
            keysRefusedMilliseconds: refusedKeys.seconds * 1000,
            keysParsedMilliseconds: parsedKeys.result == nil ? .infinity : parsedKeys.seconds * 1000,
            keys: keys,
            arrayRefusedMilliseconds: refusedArray.seconds * 1000
        )
    }
}
