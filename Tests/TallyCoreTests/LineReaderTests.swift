import Foundation
import TallyCore
import Testing

@Suite("LineReader")
struct LineReaderTests {
    struct Seen: Equatable {
        var number: Int
        var text: String?
        var terminated: Bool
        var oversized: Int?
    }

    static func read(_ input: String, maxLineLength: Int = 1 << 20, chunkSize: Int = 4) throws -> [Seen] {
        var descriptors: [Int32] = [0, 0]
        #expect(pipe(&descriptors) == 0)
        let bytes = Array(input.utf8)
        let writeEnd = descriptors[1]
        let writer = Thread {
            try? FileDescriptorWriter.writeAll(bytes, to: writeEnd, path: "pipe")
            close(writeEnd)
        }
        writer.start()
        defer { close(descriptors[0]) }
        var reader = LineReader(
            descriptor: descriptors[0],
            path: "pipe",
            maxLineLength: maxLineLength,
            chunkSize: chunkSize
        )
        var seen: [Seen] = []
        try reader.forEachLine { line in
            seen.append(
                Seen(
                    number: line.number,
                    text: line.oversizedLength == nil ? String(decoding: line.bytes, as: UTF8.self) : nil,
                    terminated: line.isTerminated,
                    oversized: line.oversizedLength
                )
            )
        }
        return seen
    }

    @Test("lines across chunk boundaries, CRLF, blank lines and a missing final newline")
    func lines() throws {
        let seen = try Self.read("first line\r\n\nsecond\nlast without newline")
        #expect(
            seen == [
                Seen(number: 1, text: "first line", terminated: true),
                Seen(number: 2, text: "", terminated: true),
                Seen(number: 3, text: "second", terminated: true),
                Seen(number: 4, text: "last without newline", terminated: false),
            ]
        )
    }

    @Test("a line over the limit is reported by length and never buffered; the next line is intact")
    func oversized() throws {
        let long = String(repeating: "x", count: 1_000)
        let seen = try Self.read("ok\n\(long)\nafter\n\(long)", maxLineLength: 100, chunkSize: 64)
        #expect(
            seen == [
                Seen(number: 1, text: "ok", terminated: true),
                Seen(number: 2, text: nil, terminated: true, oversized: 1_000),
                Seen(number: 3, text: "after", terminated: true),
                Seen(number: 4, text: nil, terminated: false, oversized: 1_000),
            ]
        )
    }
}
