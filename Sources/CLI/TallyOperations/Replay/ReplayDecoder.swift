package import TallyCore
package import TallyFormats
package import TallySchema

/// Turns a kept event (a dead letter's envelope, a collector's or ingest's rejected line) back into
/// envelopes checked against the tracking plans as they are now, the way `tally ingest` and the
/// collector check them.
package struct ReplayDecoder: Sendable {
    /// What a kept event is now.
    package enum Outcome {
        /// Valid: these events (a batch line gives several).
        case valid([EventEnvelope])
        /// Still refused, for this reason (the first of its events that fails).
        case invalid(EventViolation)
    }

    private let decoder: FormatDecoder
    private let intake: EventIntake

    /// A decoder checking with `validator`; `format` as `tally ingest --format`, `defaultFeature` as
    /// its `--feature`.
    package init(validator: EventValidator, format: SourceFormat = .auto, defaultFeature: String? = nil) {
        decoder = FormatDecoder(format: format)
        intake = EventIntake(validator: validator, defaultFeature: defaultFeature, arrival: .keepGiven)
    }

    /// The events of `bytes`. `arrivedAt`: when a collector received them (a Segment or PostHog
    /// message without a time of its own occurred then, and it is their `received_at` when they have
    /// none); else `now` is.
    package func decode(_ bytes: [UInt8], arrivedAt: Timestamp?, now: Timestamp) -> Outcome {
        let decoded = bytes.withUnsafeBufferPointer { decoder.decode($0, arrivedAt: arrivedAt) }
        var events: [EventEnvelope] = []
        for result in decoded.results {
            switch result {
            case .failure(let error):
                return .invalid(EventViolation(ReasonCode(error.code), path: error.path, message: error.message))
            case .success(let event):
                switch intake.admit(event, format: decoded.format, receivedAt: arrivedAt ?? now) {
                case .accepted(let accepted, _): events.append(accepted)
                case .rejected(let violation, _): return .invalid(violation)
                }
            }
        }
        guard !events.isEmpty else {
            return .invalid(EventViolation(.malformedJSON, path: "$", message: "no event in the kept line"))
        }
        return .valid(events)
    }
}
