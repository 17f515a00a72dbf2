import TallyCore
import TallyFormats
import Testing

/// Whether an event's properties came from a string-only producer, read from each format: only
/// tally's own mark says so; Segment and PostHog values are typed JSON.
@Suite("String-only properties across formats")
struct StringPropertiesMappingTests {
    @Test("tally: string_properties true marks the event; absent, false or null does not; another type is refused")
    func tally() throws {
        let line = #"{"name":"a_b","occurred_at":"2026-11-20T10:00:00Z","properties":{"n":"1"}"#
        #expect(try FormatMappingTests.event(line + #","string_properties":true}"#).stringProperties)
        #expect(!(try FormatMappingTests.event(line + "}").stringProperties))
        #expect(!(try FormatMappingTests.event(line + #","string_properties":false}"#).stringProperties))
        #expect(!(try FormatMappingTests.event(line + #","string_properties":null}"#).stringProperties))
        let refused = FormatMappingTests.decode(line + #","string_properties":"yes"}"#).results.first
        #expect(throws: (any Error).self) { try refused?.get() }
    }

    @Test("Segment: context.stringProperties true (tally's delivery library on Segment's wire) marks a track call")
    func segment() throws {
        let marked = try FormatMappingTests.event(
            #"{"type":"track","event":"Paid","messageId":"m1","timestamp":"2026-11-20T10:00:00Z","anonymousId":"a","properties":{"n":"1"},"context":{"stringProperties":true}}"#
        )
        #expect(marked.stringProperties)
        let typed = try FormatMappingTests.event(
            #"{"type":"track","event":"Paid","messageId":"m2","timestamp":"2026-11-20T10:00:00Z","anonymousId":"a","properties":{"n":"1"}}"#
        )
        #expect(!typed.stringProperties)
    }

    @Test("PostHog: never marked")
    func postHog() throws {
        let event = try FormatMappingTests.event(
            #"{"event":"$pageview","distinct_id":"u1","timestamp":"2026-11-20T10:00:00Z","properties":{"n":"1"}}"#
        )
        #expect(!event.stringProperties)
    }
}
