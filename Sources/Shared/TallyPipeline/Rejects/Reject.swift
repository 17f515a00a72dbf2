public import TallyCore
public import TallySchema

/// An event tally refused or could not store, kept with why and where it came from, so that
/// nothing is lost silently: a line `tally ingest` rejected, an event of a request `tally serve`
/// refused, or an event a sink could not write after its retries (a dead letter).
///
/// Every way of keeping one (files, `tally.failed_events`, the log) is a ``RejectSink``, and every
/// file holds it as the same JSON line.
public struct Reject: Sendable, Hashable {
    /// What was refused.
    public enum Content: Sendable, Hashable {
        /// The event, decoded.
        case event(EventEnvelope)
        /// The bytes as they came: an event that could not be decoded, or an input line (kept as
        /// read, so that it can be fixed and fed back).
        case bytes([UInt8])
        /// Nothing could be kept (a line too long to buffer).
        case nothing
    }

    /// Why it was refused: a stable code to count and match on, and for a person the JSON path at
    /// fault and a message that names the rule, never a value.
    public struct Reason: Sendable, Hashable {
        /// `type_mismatch`, `postgres_22P05`, `timedOut`: stable across releases.
        public var code: String
        /// `$.properties.position`, when one field is at fault.
        public var path: String?
        /// What was wrong.
        public var message: String

        /// A reason.
        public init(code: String, path: String? = nil, message: String) {
            self.code = code
            self.path = path
            self.message = message
        }

        /// The reason of a validation failure.
        public init(_ violation: EventViolation) {
            self.init(code: violation.code.rawValue, path: violation.path, message: violation.message)
        }
    }

    /// Where it came from.
    public enum Origin: Sendable, Hashable {
        /// A line of an input file (`tally ingest`, `tally replay`); `<stdin>` for standard input.
        case line(file: String, line: Int)
        /// The event at `index` (from 0) of the collector's request `id`, sent with a write key of
        /// `source`.
        case request(id: String, index: Int, source: String)
        /// The sink `name` could not write it after `attempts` attempts (`validation`, 0: the
        /// pipeline's validation refused it before any sink).
        case sink(name: String, attempts: Int)
    }

    /// What was refused.
    public var content: Content
    /// Why.
    public var reason: Reason
    /// Where it came from.
    public var origin: Origin
    /// When it was refused (for the collector's rejects: when the request arrived).
    public var failedAt: Timestamp

    /// A reject.
    public init(content: Content, reason: Reason, origin: Origin, failedAt: Timestamp) {
        self.content = content
        self.reason = reason
        self.origin = origin
        self.failedAt = failedAt
    }

    /// The event, when it was decoded.
    public var event: EventEnvelope? {
        if case .event(let event) = content { event } else { nil }
    }
}

extension Reject: CustomStringConvertible {
    /// Where it came from, for a person: `events.ndjson:12`, `request r-1 index 2`,
    /// `postgres after 5 attempts`.
    package var place: String {
        switch origin {
        case .line(let file, let line): "\(file):\(line)"
        case .request(let id, let index, _): "request \(id) index \(index)"
        case .sink(let name, let attempts): "\(name) after \(attempts) attempt\(attempts == 1 ? "" : "s")"
        }
    }

    /// Where and why, for a console: `events.ndjson:12: type_mismatch at $.properties.position:
    /// expected integer`, `request r-1 index 2: …`, `postgres after 5 attempts: …`.
    public var description: String {
        let path = reason.path.map { $0 == "$" ? "" : " at \($0)" } ?? ""
        return "\(place): \(reason.code)\(path): \(reason.message)"
    }
}
