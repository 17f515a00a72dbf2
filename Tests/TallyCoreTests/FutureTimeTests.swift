import TallyCore
import Testing

/// Events from the future (docs/formats.md): more than 24 hours after their receipt, placed at the
/// corrected time or the receipt, the device's time kept; timestamps outside 64-bit nanoseconds
/// refused, never wrapped into another century.
@Suite("Events from the future")
struct FutureTimeTests {
    static let received = Timestamp(rfc3339: "2026-11-28T12:00:00Z")!

    static func event(occurred: String, sent: String? = nil) -> EventEnvelope {
        EventEnvelope(
            eventID: EventID("01934f6e-8a2b-7c3d-9e4f-5a6b7c8d9e0f")!,
            name: "episode_list_viewed",
            occurredAt: Timestamp(rfc3339: occurred)!,
            sentAt: sent.map { Timestamp(rfc3339: $0)! },
            receivedAt: received
        )
    }

    @Test("exactly 24 hours ahead keeps its time; a microsecond more is placed at the receipt")
    func bound() {
        var atBound = Self.event(occurred: "2026-11-29T12:00:00Z")
        let atBoundMoved = atBound.placeIfFromTheFuture()
        #expect(!atBoundMoved)
        #expect(atBound.occurredAt == Timestamp(rfc3339: "2026-11-29T12:00:00Z")!)
        #expect(atBound.deviceOccurredAt == nil)
        var past = Self.event(occurred: "2026-11-29T12:00:00.000001Z")
        let pastMoved = past.placeIfFromTheFuture()
        #expect(pastMoved)
        #expect(past.occurredAt == Self.received)
        #expect(past.deviceOccurredAt == Timestamp(rfc3339: "2026-11-29T12:00:00.000001Z")!)
    }

    @Test("with sent_at, the corrected time (never after the receipt); corrected_at stays the device's")
    func corrected() {
        // The device's clock is 73 years ahead; it sent the event 5 s after tracking it.
        var event = Self.event(occurred: "2099-11-28T11:59:50Z", sent: "2099-11-28T11:59:55Z")
        let eventMoved = event.placeIfFromTheFuture()
        #expect(eventMoved)
        #expect(event.occurredAt == Timestamp(rfc3339: "2026-11-28T11:59:55Z")!)
        #expect(event.correctedAt == Timestamp(rfc3339: "2026-11-28T11:59:55Z")!)
        #expect(event.deviceOccurredAt == Timestamp(rfc3339: "2099-11-28T11:59:50Z")!)
        // sent before it occurred (a clock that jumped): the receipt, not later.
        var odd = Self.event(occurred: "2099-01-01T00:00:10Z", sent: "2099-01-01T00:00:00Z")
        let oddMoved = odd.placeIfFromTheFuture()
        #expect(oddMoved)
        #expect(odd.occurredAt == Self.received)
    }

    @Test("an event placed once is never moved again, and its line says where it came from")
    func placedOnce() throws {
        var event = Self.event(occurred: "2099-01-01T00:00:00Z")
        let eventMoved = event.placeIfFromTheFuture()
        #expect(eventMoved)
        let line = String(decoding: event.ndjsonLine, as: UTF8.self)
        #expect(line.contains(#""device_occurred_at":"2099-01-01T00:00:00.000000Z""#))
        var read = try EventEnvelope(ndjsonLine: event.ndjsonLine.dropLast())
        #expect(read == event)
        read.receivedAt = Timestamp(rfc3339: "2026-11-20T00:00:00Z")!  // earlier than where it was placed
        let readMoved = read.placeIfFromTheFuture()
        #expect(!readMoved)
        #expect(read.occurredAt == Self.received)
    }

    @Test("without a receipt nothing is placed")
    func noReceipt() {
        var event = Self.event(occurred: "2099-01-01T00:00:00Z")
        event.receivedAt = nil
        let eventMoved = event.placeIfFromTheFuture()
        #expect(!eventMoved)
    }

    @Test(
        "times outside 1677-09-22 … 2262-04-11 are refused, not wrapped into another century",
        arguments: ["9999-01-01T00:00:00Z", "2262-04-12T00:00:00Z", "0001-01-01T00:00:00Z", "1677-09-20T00:00:00Z"]
    )
    func outOfRange(text: String) {
        #expect(Timestamp(rfc3339: text) == nil)
    }

    @Test("the ends of the range read back as written")
    func rangeEnds() {
        for text in ["2262-04-11T23:47:16.854775Z", "1677-09-22T00:00:00.000000Z"] {
            #expect(Timestamp(rfc3339: text)?.rfc3339 == text)
        }
    }

    @Test("clocks too far apart to correct give no corrected time instead of a trap")
    func correctionOverflow() {
        let event = EventEnvelope(
            eventID: EventID("01934f6e-8a2b-7c3d-9e4f-5a6b7c8d9e0f")!,
            name: "x",
            occurredAt: Timestamp(rfc3339: "1678-01-01T00:00:00Z")!,
            sentAt: Timestamp(rfc3339: "2262-01-01T00:00:00Z")!,
            receivedAt: Timestamp(rfc3339: "1678-01-01T00:00:00Z")!
        )
        #expect(event.correctedAt == nil)
    }
}
