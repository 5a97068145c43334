import Testing

@testable import ChatCLI

/// The chat screen's key decoder: bytes from the terminal to keys, however the reads split them.
@Suite struct KeyDecoderTests {
    /// Decodes `bytes` in one feed, then flushes.
    static func decode(_ bytes: [UInt8]) -> [Key] {
        var decoder = KeyDecoder()
        return decoder.feed(bytes) + decoder.flush()
    }

    static func decode(_ text: String) -> [Key] {
        decode(Array(text.utf8))
    }

    @Test(
        "each key's bytes decode to it",
        arguments: [
            ("abc", [Key.text("abc")]),
            ("héllo 漢字 😀", [.text("héllo 漢字 😀")]),
            ("\r", [.enter]), ("\n", [.newline]), ("\u{1B}\r", [.newline]), ("\u{7F}", [.backspace]),
            ("\u{08}", [.backspace]),
            ("\t", [.tab]), ("\u{1B}[Z", [.backTab]),
            ("\u{1B}[A", [.up]), ("\u{1B}[B", [.down]), ("\u{1B}[C", [.right]), ("\u{1B}[D", [.left]),
            ("\u{1B}OA", [.up]), ("\u{1B}OB", [.down]), ("\u{1B}OC", [.right]), ("\u{1B}OD", [.left]),
            ("\u{1B}[H", [.home]), ("\u{1B}[F", [.end]), ("\u{1B}[1~", [.home]), ("\u{1B}[4~", [.end]),
            ("\u{1B}[7~", [.home]), ("\u{1B}[8~", [.end]), ("\u{1B}OH", [.home]), ("\u{1B}OF", [.end]),
            ("\u{1B}[3~", [.delete]), ("\u{1B}[5~", [.pageUp]), ("\u{1B}[6~", [.pageDown]),
            ("\u{1B}[1;5A", [.up]), ("\u{1B}[1;2D", [.left]), ("\u{1B}[3;5~", [.delete]), ("\u{1B}[5;3~", [.pageUp]),
            ("\u{1B}[<64;10;5M", [.wheelUp]), ("\u{1B}[<65;1;1M", [.wheelDown]), ("\u{1B}[<68;3;3M", [.wheelUp]),
            ("\u{1B}[<0;10;5M", []), ("\u{1B}[<0;10;5m", []), ("\u{1B}[<64;10;5m", []), ("\u{1B}[<96;1;1M", []),
            ("\u{1B}[I", [.focusIn]), ("\u{1B}[O", [.focusOut]),
            ("\u{1B}[200~hello\rworld\u{1B}[201~", [.paste("hello\nworld")]),
            ("\u{1B}[200~a\r\nb\tc\u{07}d\u{1B}[31me\u{1B}[201~", [.paste("a\nb\tcd[31me")]),
            ("\u{1B}[201~", []),
            ("\u{01}", [.control("a")]), ("\u{03}", [.control("c")]), ("\u{04}", [.control("d")]),
            ("\u{15}", [.control("u")]),
            ("\u{17}", [.control("w")]), ("\u{05}", [.control("e")]), ("\u{00}", [.control("@")]),
            ("\u{1C}", [.control("\\")]),
            ("\u{1B}", [.escape]), ("\u{1B}\u{1B}", [.escape, .escape]), ("\u{1B}\u{1B}[A", [.escape, .up]),
            ("\u{1B}x", []), ("\u{1B}\u{7F}", []), ("\u{1B}[15~", []), ("\u{1B}[?1;2c", []), ("\u{1B}[2 q", []),
            ("\u{1B}OP", []),
            ("\u{1B}[12;40R", []), ("\u{1B}[Mabc", []), ("a\u{1B}[Mxyzb", [.text("a"), .text("b")]),
            ("ab\rcd", [.text("ab"), .enter, .text("cd")]),
            ("x\u{1B}[Ay", [.text("x"), .up, .text("y")]),
            ("\u{1B}[", []), ("\u{1B}[1;5", []), ("\u{1B}O", []),
            ("\u{1B}[1\u{03}", [.control("c")]),
            ("\u{1B}\u{03}", [.escape, .control("c")]),
        ])
    func table(_ input: String, _ keys: [Key]) {
        #expect(Self.merged(Self.decode(input)) == Self.merged(keys), "\(input.debugDescription)")
    }

    @Test(
        "invalid UTF-8 reads as U+FFFD, one for each broken piece, and the bytes after it are read again",
        arguments: [
            ([0xFF], "\u{FFFD}"), ([0x80, 0x41], "\u{FFFD}A"), ([0xC3], "\u{FFFD}"), ([0xC3, 0x41], "\u{FFFD}A"),
            ([0xE2, 0x82], "\u{FFFD}"), ([0xE2, 0x82, 0xAC], "€"), ([0xED, 0xA0, 0x80], "\u{FFFD}\u{FFFD}\u{FFFD}"),
            ([0xF0, 0x9F, 0x98, 0x80], "😀"), ([0xF4, 0x90, 0x80, 0x80], "\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}"),
            ([0xC0, 0xAF], "\u{FFFD}\u{FFFD}"),
        ] as [([UInt8], String)])
    func invalidUTF8(_ bytes: [UInt8], _ text: String) {
        #expect(Self.decode(bytes) == [.text(text)])
    }

    @Test("C1 controls sent as UTF-8 (NEL, CSI) are dropped, never text")
    func c1Dropped() {
        #expect(Self.decode([0x61, 0xC2, 0x85, 0xC2, 0x9B, 0x62]) == [.text("ab")])
    }

    @Test("a sequence or a character split across reads is completed by the next read")
    func splitAcrossFeeds() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0x1B]).isEmpty)
        #expect(decoder.feed(Array("[".utf8)).isEmpty)
        #expect(decoder.feed(Array("1;5".utf8)).isEmpty)
        #expect(decoder.feed(Array("Ax".utf8)) == [.up, .text("x")])
        #expect(decoder.feed([0xE6, 0xBC]).isEmpty)
        #expect(decoder.feed([0xA2]) == [.text("漢")])
        #expect(decoder.feed(Array("\u{1B}[200~first ".utf8)).isEmpty)
        #expect(decoder.feed(Array("second\u{1B}[20".utf8)).isEmpty)
        #expect(decoder.flush().isEmpty, "a pause inside a paste does not end it")
        #expect(decoder.feed(Array("1~".utf8)) == [.paste("first second")])
        #expect(decoder.feed(Array("\u{1B}[200~x\u{1B}[20y\u{1B}\u{1B}[201~".utf8)) == [.paste("x[20y")])
    }

    @Test("a lone escape waits for the pause; half a sequence is dropped then, and half a character is U+FFFD")
    func flush() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0x1B]).isEmpty)
        #expect(decoder.flush() == [.escape])
        #expect(decoder.flush().isEmpty)
        #expect(decoder.feed(Array("\u{1B}[1;".utf8)).isEmpty)
        #expect(decoder.flush().isEmpty)
        #expect(decoder.feed(Array("A".utf8)) == [.text("A")], "after the pause, the rest is what it is")
        #expect(decoder.feed([0xF0, 0x9F]).isEmpty)
        #expect(decoder.flush() == [.text("\u{FFFD}")])
    }

    @Test("a paste longer than the limit keeps the first MiB and drops the rest; the keys after it still arrive")
    func pasteLimit() {
        var decoder = KeyDecoder()
        var keys = decoder.feed(Array("\u{1B}[200~".utf8))
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 64 * 1024)
        for _ in 0..<20 { keys += decoder.feed(chunk) }
        keys += decoder.feed(Array("\u{1B}[201~\r".utf8))
        #expect(keys.count == 2)
        guard case .paste(let text) = keys.first else {
            Issue.record("no paste: \(keys.prefix(3))")
            return
        }
        #expect(text.utf8.count == KeyDecoder.pasteLimit)
        #expect(keys.last == .enter)
    }

    @Test("an endless control sequence is skipped to its end without leaking its bytes as text")
    func overlongSequence() {
        let bytes = Array("\u{1B}[".utf8) + [UInt8](repeating: UInt8(ascii: "9"), count: 100_000) + Array("~ok".utf8)
        #expect(Self.decode(bytes) == [.text("ok")])
    }

    /// Joins adjacent `.text` keys: how one feed or many split a run of text is not meaningful.
    static func merged(_ keys: [Key]) -> [Key] {
        var out: [Key] = []
        for key in keys {
            if case .text(let more) = key, case .text(let text)? = out.last {
                out[out.count - 1] = .text(text + more)
            } else {
                out.append(key)
            }
        }
        return out
    }

    @Test("random bytes in random splits decode as they do in one read, and never yield a control character as text")
    func randomSplits() {
        var random = SplitMix(seed: 0x6B65_7973)
        let interesting: [UInt8] =
            Array("\u{1B}\u{1B}\u{1B}[[O;<~~0125689AaMmZIOH\r\n\t\u{7F}".utf8) + [
                0x00, 0x03, 0x80, 0xBF, 0xC3, 0xE2, 0xED, 0xF0, 0xF4, 0xFF,
            ]
        let pieces = ["\u{1B}[200~", "\u{1B}[201~", "\u{1B}[<64;1;1M", "漢", "😀", "\u{1B}[1;5A", "\u{1B}[M"].map {
            Array($0.utf8)
        }
        for round in 0..<400 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(random.next() % 200) {
                switch random.next() % 4 {
                case 0: bytes.append(UInt8(truncatingIfNeeded: random.next()))
                case 1: bytes += pieces[Int(random.next() % UInt64(pieces.count))]
                default: bytes.append(interesting[Int(random.next() % UInt64(interesting.count))])
                }
            }
            let whole = Self.merged(Self.decode(bytes))
            var decoder = KeyDecoder()
            var split: [Key] = []
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + Int(random.next() % 8))
                split += decoder.feed(Array(bytes[start..<end]))
                start = end
            }
            split += decoder.flush()
            #expect(Self.merged(split) == whole, "round \(round): \(bytes)")
            for key in whole {
                switch key {
                case .text(let text):
                    #expect(
                        !text.isEmpty && !text.unicodeScalars.contains { $0.properties.generalCategory == .control },
                        "round \(round): \(bytes)")
                case .paste(let text):
                    #expect(
                        !text.unicodeScalars.contains {
                            $0.properties.generalCategory == .control && $0 != "\n" && $0 != "\t"
                        }, "round \(round): \(bytes)")
                default:
                    break
                }
            }
        }
    }
}
