import TallyCore
import TallyFormats
import Testing

@Suite("Segment and PostHog errors")
struct ForeignErrorTests {
    static let time = #""timestamp":"2026-11-20T10:00:00Z""#

    /// Lines that fail for different reasons, each holding `s3cr3t` as a value.
    static let failing: [(SourceFormat, String)] = [
        (.segment, #"{"type":"track","event":"A","userId":"u","timestamp":"s3cr3t"}"#),
        (.segment, #"{"type":"s3cr3t","userId":"u","# + time + "}"),
        (.segment, #"{"type":"track","event":"A","properties":{"password":"s3cr3t"},"# + time + "}"),
        (.segment, #"{"type":"track","event":"A","userId":"u","context":"s3cr3t","# + time + "}"),
        (.segment, #"{"type":"track","event":"A","userId":["s3cr3t"],"# + time + "}"),
        (.segment, #"{"batch":"s3cr3t"}"#),
        (.segment, #"{"type":"track","event":"A","properties":{"password":"s3cr3t""#),
        (.posthog, #"{"event":"$pageview","properties":{"password":"s3cr3t"},"# + time + "}"),
        (.posthog, #"{"event":"$pageview","distinct_id":"u","timestamp":"s3cr3t"}"#),
        (.posthog, #"{"event":"$create_alias","distinct_id":"u","properties":{"password":"s3cr3t"},"# + time + "}"),
    ]

    @Test("a foreign line that fails never has its values in the error", arguments: failing)
    func foreignErrorsHideValues(format: SourceFormat, line: String) throws {
        let bytes = Array(line.utf8)
        let results = bytes.withUnsafeBufferPointer { FormatDecoder(format: format).decode($0) }.results
        guard case .failure(let error)? = results.first else {
            Issue.record("\(line) decoded")
            return
        }
        #expect(!error.description.contains("s3cr3t"), "\(error)")
    }
}
