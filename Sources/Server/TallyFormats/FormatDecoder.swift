public import TallyCore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Turns one input line of any ``SourceFormat`` into envelopes: tally lines through
/// the envelope decoder (no JSON tree), Segment and PostHog lines through their mappers.
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
    ///
    /// - Parameter arrivedAt: when a collector received the line: a Segment or PostHog message
    ///   with no time of its own occurred then, as those services take it. Files have no arrival
    ///   time: without one, such a message is refused.
    public func decode(_ line: UnsafeBufferPointer<UInt8>, arrivedAt: Timestamp? = nil) -> Decoded {
        decode(line, arrivedAt: arrivedAt, shape: .asSent)
    }

    /// What a collector's route implies about the bodies posted to it.
    package enum Shape: Sendable {
        /// Nothing: the body says what it is.
        case asSent
        /// A Segment call of this type (`/v1/track`): a message that names no `type` has this one.
        case segmentCall(String)
        /// A PostHog batch route: a bare JSON array is the batch.
        case batchOrArray
    }

    /// Decodes `line` as a body posted to a route that implies `shape`.
    package func decode(_ line: UnsafeBufferPointer<UInt8>, arrivedAt: Timestamp?, shape: Shape) -> Decoded {
        let impliedType: String?
        if case .segmentCall(let type) = shape { impliedType = type } else { impliedType = nil }
        if format == .tally || (format == .auto && Self.contains(Self.occurredAtKey, in: line)) {
            return Decoded(
                format: .tally,
                results: [
                    Result { () throws(EnvelopeDecodingError) in try envelopeDecoder.decodeDerivingMissingID(line) }
                ]
            )
        }
        // In `auto`, only lines that name a `type` can be Segment messages: a PostHog line is not
        // read twice (by the fast path, which would decline it, and then by ForeignLine).
        if format == .segment || (format == .auto && Self.contains(Self.typeKey, in: line)),
            let event = SegmentLineDecoder.decode(line, impliedType: impliedType)
        {
            return Decoded(format: .segment, results: [.success(event)])
        }
        let foreign: ForeignLine
        do {
            if case .batchOrArray = shape {
                foreign = try ForeignLine(line, bareArrayIsBatch: true)
            } else {
                foreign = try ForeignLine(line)
            }
        } catch {
            return Decoded(format: format, results: [.failure(error)])
        }
        let detected = format == .auto ? SourceFormat.detect(foreign) : format
        switch detected {
        case .segment:
            return Decoded(
                format: .segment,
                results: segment.map(foreign, arrivedAt: arrivedAt, impliedType: impliedType)
            )
        case .posthog: return Decoded(format: .posthog, results: posthog.map(foreign, arrivedAt: arrivedAt))
        default:
            return Decoded(
                format: .tally,
                results: [
                    Result { () throws(EnvelopeDecodingError) in try envelopeDecoder.decodeDerivingMissingID(line) }
                ]
            )
        }
    }

    /// Whether `needle` (a quoted key) occurs in the line (memchr for quotes, memcmp at each):
    /// `"occurred_at"` sends tally's own lines to the decoder that builds no JSON tree.
    private static func contains(_ key: StaticString, in line: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = line.baseAddress else { return false }
        return key.withUTF8Buffer { needle in
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
    private static let typeKey: StaticString = #""type""#
}
