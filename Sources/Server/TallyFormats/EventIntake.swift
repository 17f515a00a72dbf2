package import TallyCore
package import TallySchema

/// The one accept step of every way in (`tally ingest`, `tally serve`, `tally replay`): a decoded
/// event is stamped with its arrival, validated against the tracking plans, given its default
/// feature and, when it comes from the future, placed at its receipt, or refused with the first
/// violation (all of them summarized in its message).
package struct EventIntake: Sendable {
    /// What became of one event.
    package enum Outcome {
        /// Accepted: the event as it should be stored; `placed` when it came from the future.
        case accepted(EventEnvelope, placed: Bool)
        /// Refused for this reason; the event as validated, to keep with it.
        case rejected(EventViolation, EventEnvelope)
    }

    /// How an arrival time is stamped.
    package enum Arrival: Sendable {
        /// A collector received the event now, whatever a client wrote in `received_at`.
        case overwrite
        /// A file's event keeps a `received_at` it carries (an export of a collector's events).
        case keepGiven
    }

    /// Structural checks, and the tracking plans when there is a registry.
    package let validator: EventValidator
    /// The feature of events that name none and that no tracking plan claims (`--feature`, or the
    /// write key's source feature); nil: ``feature(of:format:)``.
    package let defaultFeature: String?
    /// How ``admit(_:format:receivedAt:)`` stamps `received_at`.
    package let arrival: Arrival

    package init(validator: EventValidator, defaultFeature: String? = nil, arrival: Arrival) {
        self.validator = validator
        self.defaultFeature = defaultFeature
        self.arrival = arrival
    }

    /// Accepts or refuses `event`, decoded from `format`, which arrived at `receivedAt`.
    ///
    /// The event is consumed and moved on, never copied: a copy of an envelope's fields retains
    /// about ten references, and an event that is still shared when it is stamped gets one.
    package func admit(_ decoded: consuming EventEnvelope, format: SourceFormat, receivedAt: Timestamp) -> Outcome {
        var event = decoded
        switch arrival {
        case .overwrite: event.receivedAt = receivedAt
        case .keepGiven: if event.receivedAt == nil { event.receivedAt = receivedAt }
        }
        let result = validator.validate(consume event)
        guard result.isValid else {
            var first = result.violations[0]
            if result.violations.count > 1 { first.message = result.summary }
            return .rejected(first, result.event)
        }
        var accepted = (consume result).event
        if accepted.feature == nil, accepted.kind == .track {
            accepted.feature = defaultFeature ?? Self.feature(of: accepted, format: format)
        }
        let placed = accepted.placeIfFromTheFuture()
        return .accepted(accepted, placed: placed)
    }

    /// The feature of an event that names none, that no plan claims and with no default: for
    /// tally's own lines the first word of the name (`episode_list_viewed` → `episode`, as screens
    /// are named after their feature); for other sources the source (`segment`, `posthog`).
    package static func feature(of event: EventEnvelope, format: SourceFormat) -> String {
        format == .tally ? String(event.name.prefix { $0 != "_" }) : format.rawValue
    }
}
