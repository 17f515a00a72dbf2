package import HTTPTypes
import TallyCore

/// Why a request was refused as a whole: its status, a stable code and a message, answered as
/// `{"error":{"code":"…","message":"…"}}` (with `"index"` when one event is the cause). Nothing
/// of a refused request is stored.
package struct CollectorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable code, snake_case (`invalid_json`).
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        package let description: String
        private init(_ name: String) { description = name }

        /// The body is not valid JSON (or NDJSON).
        package static let invalidJSON = Code("invalid_json")
        /// The compressed body is corrupt or truncated.
        package static let invalidEncoding = Code("invalid_encoding")
        /// The body holds no event.
        package static let noEvents = Code("no_events")
        /// The body is not the shape the route takes.
        package static let invalidBody = Code("invalid_body")
        /// No key, or an unknown one.
        package static let unauthorized = Code("unauthorized")
        /// The body as sent is over the request limit.
        package static let requestTooLarge = Code("request_too_large")
        /// The body inflates past the size or ratio cap.
        package static let decompressedTooLarge = Code("decompressed_too_large")
        /// A `Content-Encoding` other than gzip, deflate or identity.
        package static let unsupportedEncoding = Code("unsupported_encoding")
        /// Too much is waiting to be written.
        package static let queueFull = Code("queue_full")
        /// The store could not take the events in time.
        package static let unavailable = Code("unavailable")
        /// The collector is shutting down.
        package static let shuttingDown = Code("shutting_down")
        /// No such route.
        package static let notFound = Code("not_found")
        /// The route does not take this method.
        package static let methodNotAllowed = Code("method_not_allowed")
        /// The body did not arrive in time.
        package static let timeout = Code("request_timeout")
    }

    package var status: HTTPResponse.Status
    package var code: Code
    package var message: String
    /// The event at fault, by its 0-based position in the request.
    package var index: Int?

    package init(_ status: HTTPResponse.Status, _ code: Code, _ message: String, index: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.index = index
    }

    package var description: String { "\(status.code) \(code): \(message)" }

    /// The reply body.
    package var json: [UInt8] {
        var bytes: [UInt8] = []
        bytes.append(contentsOf: #"{"error":{"code":"#.utf8)
        JSONWriter.appendString(code.description, to: &bytes)
        bytes.append(contentsOf: #","message":"#.utf8)
        JSONWriter.appendString(message, to: &bytes)
        if let index {
            bytes.append(contentsOf: #","index":"#.utf8)
            JSONWriter.appendInteger(Int64(index), to: &bytes)
        }
        bytes.append(contentsOf: "}}".utf8)
        return bytes
    }
}
