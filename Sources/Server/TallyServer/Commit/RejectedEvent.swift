package import TallyCore

/// An event of an accepted request that failed decoding or validation: dead-lettered durably,
/// with the request and its position in it, before the reply lists it.
package struct RejectedEvent: Sendable {
    /// The request's `X-Request-Id`.
    package var requestID: String
    /// 0-based position of the event in the request.
    package var index: Int
    /// The source of the write key (`anonymous` without one).
    package var source: String
    /// Stable reason code (`type_mismatch`).
    package var reason: String
    /// `$.properties.x`.
    package var path: String
    /// What is wrong, never the value.
    package var message: String
    /// The event as JSON text: its envelope when it could be decoded, else its raw bytes when
    /// they are known (an NDJSON line, an array element); nil otherwise.
    package var event: [UInt8]?
    /// When the collector received it.
    package var receivedAt: Timestamp

    package init(
        requestID: String,
        index: Int,
        source: String,
        reason: String,
        path: String,
        message: String,
        event: [UInt8]?,
        receivedAt: Timestamp
    ) {
        self.requestID = requestID
        self.index = index
        self.source = source
        self.reason = reason
        self.path = path
        self.message = message
        self.event = event
        self.receivedAt = receivedAt
    }

    /// One NDJSON line: `{"failed_at":…,"sink":"collector","reason":…,"path":…,"message":…,
    /// "request_id":…,"index":…,"source":…,"event":{…}}`.
    package func appendNDJSON(to bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"{"failed_at":""#.utf8)
        receivedAt.appendRFC3339(to: &bytes)
        bytes.append(contentsOf: #"","sink":"collector","reason":"#.utf8)
        JSONWriter.appendString(reason, to: &bytes)
        bytes.append(contentsOf: #","path":"#.utf8)
        JSONWriter.appendString(path, to: &bytes)
        bytes.append(contentsOf: #","message":"#.utf8)
        JSONWriter.appendString(message, to: &bytes)
        bytes.append(contentsOf: #","request_id":"#.utf8)
        JSONWriter.appendString(requestID, to: &bytes)
        bytes.append(contentsOf: #","index":"#.utf8)
        JSONWriter.appendInteger(Int64(index), to: &bytes)
        bytes.append(contentsOf: #","source":"#.utf8)
        JSONWriter.appendString(source, to: &bytes)
        bytes.append(contentsOf: #","event":"#.utf8)
        if let event, !event.isEmpty {
            bytes.append(contentsOf: event)
        } else {
            bytes.append(contentsOf: "null".utf8)
        }
        bytes.append(contentsOf: "}\n".utf8)
    }
}

/// Where a collector keeps rejected events, durably before it answers.
package protocol RejectSink: Sendable {
    /// Stores `rejects`; returns once they are durable (fsynced, committed).
    func store(_ rejects: [RejectedEvent]) async throws
    /// Whether the store can be reached (for `/readyz`).
    func isReachable() async -> Bool
}
