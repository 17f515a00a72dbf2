import TallyCompression
import Testing

@Suite("Inflater")
struct InflaterTests {
    let text = Array(
        String(repeating: #"{"name":"episode_list_viewed","occurred_at":"2026-11-22T10:00:00Z"}"# + "\n", count: 200)
            .utf8
    )

    @Test("gzip, zlib deflate and raw deflate round-trip, fed a byte at a time too")
    func roundTrip() throws {
        for (format, raw) in [(Inflater.Format.gzip, false), (.deflate, false), (.deflate, true)] {
            let compressed = Deflater.compress(text, format: format, raw: raw)
            #expect(try Inflater.inflate(compressed, format: format) == text)
            let inflater = try Inflater(format)
            var output: [UInt8] = []
            for byte in compressed {
                try [byte].withUnsafeBytes { try inflater.feed($0, into: &output) }
            }
            try inflater.finish()
            #expect(output == text)
        }
    }

    @Test("concatenated gzip members are one stream")
    func members() throws {
        let twice = Deflater.compress(text, format: .gzip) + Deflater.compress(text, format: .gzip)
        #expect(try Inflater.inflate(twice, format: .gzip) == text + text)
    }

    @Test("a truncated stream is refused as truncated")
    func truncated() throws {
        let compressed = Deflater.compress(text, format: .gzip)
        let error = #expect(throws: InflateError.self) {
            try Inflater.inflate(Array(compressed.dropLast(9)), format: .gzip)
        }
        #expect(error?.code == .truncated)
    }

    @Test("corrupt data is refused as corrupt")
    func corrupt() throws {
        var compressed = Deflater.compress(text, format: .gzip)
        compressed[compressed.count - 6] ^= 0xff  // the CRC
        let error = #expect(throws: InflateError.self) { try Inflater.inflate(compressed, format: .gzip) }
        #expect(error?.code == .corrupt)
        let garbage = #expect(throws: InflateError.self) {
            try Inflater.inflate([0x1f, 0x8b, 0x08, 0, 1, 2, 3, 4, 5, 6, 7, 8], format: .gzip)
        }
        #expect(garbage?.code == .corrupt)
    }

    @Test("a bomb stops at the output cap, the ratio cap first when it is lower")
    func bomb() throws {
        let zeros = [UInt8](repeating: 0, count: 20 << 20)
        let bomb = Deflater.compress(zeros, format: .gzip, level: 9)
        let tooLarge = #expect(throws: InflateError.self) {
            try Inflater.inflate(bomb, format: .gzip, limits: .init(maxOutputBytes: 8 << 20, maxRatio: 10_000))
        }
        #expect(tooLarge?.code == .tooLarge)
        let ratio = #expect(throws: InflateError.self) { try Inflater.inflate(bomb, format: .gzip) }
        #expect(ratio?.code == .ratioExceeded)
    }

    @Test("gzip is recognised by its magic bytes")
    func magic() {
        #expect(Inflater.isGzip(Deflater.compress(text, format: .gzip)))
        #expect(!Inflater.isGzip(text))
    }
}
