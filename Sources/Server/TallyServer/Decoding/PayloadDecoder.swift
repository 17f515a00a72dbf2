import TallyCore
import TallyFormats
import TallyPipeline
import TallySchema

/// Turns a request body into validated envelopes and rejects, the way `tally ingest` reads
/// lines: tally envelopes through the envelope decoder, Segment and PostHog payloads through
/// their mappers, every event validated against the sender's tracking plan.
///
/// A body that is not JSON refuses the whole request (400, nothing stored); an event that decodes
/// but breaks a rule, its size limit included, is rejected alone (dead-lettered with its index and
/// reason) and the rest are accepted, as `tally ingest` rejects a line and reads on.
struct PayloadDecoder {
    /// What a request holds once decoded.
    struct Decoded {
        var events: [EventEnvelope] = []
        var rejects: [Reject] = []
        /// Events from the future, placed at their receipt.
        var futurePlaced = 0
        /// The format it was read as (for `/batch`: Segment or PostHog).
        var format: SourceFormat = .tally
    }

    let kind: PayloadKind
    let sender: WriteKeyTable.Sender
    let requestID: String
    let receivedAt: Timestamp
    private let intake: EventIntake

    init(kind: PayloadKind, sender: WriteKeyTable.Sender, requestID: String, receivedAt: Timestamp) {
        self.kind = kind
        self.sender = sender
        self.requestID = requestID
        self.receivedAt = receivedAt
        intake = EventIntake(validator: sender.validator, defaultFeature: sender.feature, arrival: .overwrite)
    }

    private static let tallyDecoder = EnvelopeDecoder()
    private static let segment = FormatDecoder(format: .segment)
    private static let posthog = FormatDecoder(format: .posthog)
    private static let auto = FormatDecoder(format: .auto)

    /// Decodes and validates `body`.
    /// - Throws: ``CollectorError`` 400 for malformed JSON, a body of the wrong shape, no events.
    func decode(_ body: [UInt8]) throws -> Decoded {
        var decoded = Decoded()
        try body.withUnsafeBufferPointer { buffer in
            switch kind {
            case .tally:
                try decodeTally(buffer, into: &decoded)
            case .segmentBatch:
                try decodeForeign(buffer, Self.segment, shape: .asSent, into: &decoded)
            case .sharedBatch:
                try decodeForeign(buffer, Self.auto, shape: .asSent, into: &decoded)
            case .segmentCall(let type):
                try decodeForeign(buffer, Self.segment, shape: .segmentCall(type), into: &decoded)
            case .posthog:
                try decodeForeign(buffer, Self.posthog, shape: .batchOrArray, into: &decoded)
            }
        }
        if decoded.events.isEmpty && decoded.rejects.isEmpty {
            throw CollectorError(.badRequest, .noEvents, "the body holds no event")
        }
        return decoded
    }

    /// NDJSON (one envelope per non-blank line) or a JSON array of envelopes.
    private func decodeTally(_ body: UnsafeBufferPointer<UInt8>, into decoded: inout Decoded) throws {
        decoded.format = .tally
        let first = body.firstIndex { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }
        guard let first else { return }
        var ranges: [Range<Int>] = []
        if body[first] == UInt8(ascii: "[") {
            do {
                ranges = try JSONTopLevel.arrayElements(body)
            } catch {
                throw CollectorError(.badRequest, .invalidJSON, "the body is not a JSON array: \(error)")
            }
        } else {
            var start = 0
            while start < body.count {
                let end = TallyCore.firstIndex(of: UInt8(ascii: "\n"), in: body, from: start) ?? body.count
                let line = start..<end
                if body[line].contains(where: { $0 != 0x20 && $0 != 0x0D && $0 != 0x09 }) { ranges.append(line) }
                start = end + 1
            }
        }
        decoded.events.reserveCapacity(ranges.count)
        for (index, range) in ranges.enumerated() {
            let bytes = UnsafeBufferPointer(rebasing: body[range])
            let event: EventEnvelope
            do throws(EnvelopeDecodingError) {
                event = try Self.tallyDecoder.decodeDerivingMissingID(bytes)
            } catch  where error.code == .malformedJSON {
                throw CollectorError(.badRequest, .invalidJSON, "event \(index): \(error.message)", index: index)
            } catch {
                reject(
                    EventViolation(ReasonCode(error.code), path: error.path, message: error.message),
                    index: index,
                    content: .bytes(Array(bytes)),
                    into: &decoded
                )
                continue
            }
            accept(consume event, format: .tally, index: index, into: &decoded)
        }
    }

    /// Segment or PostHog: one message or a batch wrapper.
    private func decodeForeign(
        _ body: UnsafeBufferPointer<UInt8>,
        _ decoder: FormatDecoder,
        shape: FormatDecoder.Shape,
        into decoded: inout Decoded
    ) throws {
        let result = decoder.decode(body, arrivedAt: receivedAt, shape: shape)
        decoded.format = result.format
        var results = result.results
        if results.count == 1, case .failure(let error) = results[0], error.path == "$" || error.path == "$.batch" {
            // The body as a whole is unusable: not JSON, not an object, `batch` not an array.
            let code: CollectorError.Code = error.code == .malformedJSON ? .invalidJSON : .invalidBody
            throw CollectorError(.badRequest, code, error.message)
        }
        decoded.events.reserveCapacity(results.count)
        results.reverse()
        var index = 0
        // The raw messages, for the dead letters of those that cannot be decoded (found only then).
        var ranges: [Range<Int>]??
        while let next = results.popLast() {
            switch next {
            case .success(let event):
                accept(event, format: result.format, index: index, into: &decoded)
            case .failure(let error):
                if ranges == nil { ranges = .some(JSONTopLevel.messageRanges(body)) }
                let range = ranges??.count == result.results.count ? ranges??[index] : nil
                reject(
                    EventViolation(ReasonCode(error.code), path: error.path, message: error.message),
                    index: index,
                    content: range.map { .bytes(Array(body[$0])) } ?? .nothing,
                    into: &decoded
                )
            }
            index += 1
        }
    }

    // The event is consumed and moved on, never copied: a copy of an envelope's fields retains
    // about ten references, and an event that is still shared when it is stamped gets one.
    private func accept(
        _ event: consuming EventEnvelope,
        format: SourceFormat,
        index: Int,
        into decoded: inout Decoded
    ) {
        switch intake.admit(event, format: format, receivedAt: receivedAt) {
        case .accepted(let accepted, let placed):
            if placed { decoded.futurePlaced += 1 }
            decoded.events.append(accepted)
        case .rejected(let violation, let event):
            reject(violation, index: index, content: .event(event), into: &decoded)
        }
    }

    private func reject(_ violation: EventViolation, index: Int, content: Reject.Content, into decoded: inout Decoded) {
        decoded.rejects.append(
            Reject(
                content: content,
                reason: Reject.Reason(violation),
                origin: .request(id: requestID, index: index, source: sender.source),
                failedAt: receivedAt
            )
        )
    }
}
