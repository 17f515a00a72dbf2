public import TallyCore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Turns one input line of any ``SourceFormat`` into envelopes: tally lines through
/// ``EnvelopeDecoder`` (no JSON tree), Segment and PostHog lines through their mappers.
public struct FormatDecoder: Sendable {
    /// The format of the input (``SourceFormat/auto`` decides per line).
    public let format: SourceFormat
    private let envelopeDecoder = EnvelopeDecoder()
    private let segment = SegmentMessageMapper()
    private let posthog = PostHogEventMapper()

    /// A decoder for `format`.
    public init(format: SourceFormat) {
        self.format = format
    }

    /// One decoded line: the format it was read as, and its envelopes, each or the reason it was
    /// refused (a batch wrapper gives several).
    public struct Decoded {
        /// ``SourceFormat/tally``, ``SourceFormat/segment`` or ``SourceFormat/posthog``.
        public var format: SourceFormat
        /// One result per event of the line.
        public var results: [Result<EventEnvelope, EnvelopeDecodingError>]
    }

    /// Decodes `line`. Lines without an id get one derived from their content, which a re-send
    /// reproduces.
    public func decode(_ line: UnsafeBufferPointer<UInt8>) -> Decoded {
        if format == .tally || (format == .auto && Self.looksLikeTally(line)) {
            return Decoded(
                format: .tally,
                results: [
                    Result { () throws(EnvelopeDecodingError) in try envelopeDecoder.decodeDerivingMissingID(line) }
                ]
            )
        }
        if format == .segment || format == .auto, let event = SegmentLineDecoder.decode(line) {
            return Decoded(format: .segment, results: [.success(event)])
        }
        let foreign: ForeignLine
        do {
            foreign = try ForeignLine(line)
        } catch {
            return Decoded(format: format, results: [.failure(error)])
        }
        let detected = format == .auto ? SourceFormat.detect(foreign) : format
        switch detected {
        case .segment: return Decoded(format: .segment, results: segment.map(foreign))
        case .posthog: return Decoded(format: .posthog, results: posthog.map(foreign))
        default:
            return Decoded(
                format: .tally,
                results: [
                    Result { () throws(EnvelopeDecodingError) in try envelopeDecoder.decodeDerivingMissingID(line) }
                ]
            )
        }
    }

    /// Whether `"occurred_at"` occurs in the line (memchr for quotes, memcmp at each): tally's own
    /// lines skip the JSON tree.
    private static func looksLikeTally(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = line.baseAddress else { return false }
        return Self.occurredAtKey.withUTF8Buffer { needle in
            var offset = 0
            while line.count - offset >= needle.count {
                guard let found = memchr(base + offset, Int32(UInt8(ascii: "\"")), line.count - offset) else {
                    return false
                }
                let position = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                if line.count - position >= needle.count,
                    memcmp(base + position, needle.baseAddress!, needle.count) == 0
                {
                    return true
                }
                offset = position + 1
            }
            return false
        }
    }

    private static let occurredAtKey: StaticString = #""occurred_at""#
}
