import TallyCore
import Testing

@Suite("UUIDv7Generator")
struct UUIDv7GeneratorTests {
    @Test("ids are version 7, RFC 9562 variant, and carry the millisecond")
    func layout() {
        var generator = UUIDv7Generator(seed: 42)
        let now = Timestamp(secondsSinceEpoch: 1_790_000_000, nanoseconds: 123_456_789)
        let id = generator.next(at: now)
        #expect(id.version == 7)
        #expect(id.low >> 62 == 0b10)
        #expect(id.unixMilliseconds == now.millisecondsSinceEpoch)
        let text = id.description
        #expect(text.count == 36)
        #expect(Array(text)[14] == "7")
        #expect(EventID(text) == id)
    }

    @Test("ids from one generator strictly increase, within a millisecond and when the clock steps back")
    func monotonic() {
        var generator = UUIDv7Generator()
        let start = Timestamp(secondsSinceEpoch: 1_790_000_000)
        var previous = generator.next(at: start)
        for step in 0..<20_000 {
            // Same millisecond for a while, then a step back, then forward.
            let offset: Int64 = step < 10_000 ? 0 : (step < 15_000 ? -5_000_000 : Int64(step) * 1_000)
            let id = generator.next(at: start.advanced(byNanoseconds: offset))
            #expect(id > previous)
            previous = id
        }
    }

    @Test("two generators do not share a sequence")
    func distinctStreams() {
        var first = UUIDv7Generator()
        var second = UUIDv7Generator()
        let now = Timestamp.now()
        let a = Set((0..<1_000).map { _ in first.next(at: now) })
        let b = Set((0..<1_000).map { _ in second.next(at: now) })
        #expect(a.isDisjoint(with: b))
    }
}
