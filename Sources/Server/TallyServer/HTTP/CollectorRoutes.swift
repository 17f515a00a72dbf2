import Hummingbird
import TallyCore
import TallyFormats

/// The handlers behind the routes: read, authenticate, decode, commit, reply.
struct CollectorRoutes: Sendable {
    let collector: Collector

    private var configuration: CollectorConfiguration { collector.configuration }

    /// A POST of events: 200 once every accepted event and every reject is durable.
    func ingest(_ request: Request, _ context: BasicRequestContext, _ kind: PayloadKind) async throws -> Response {
        let receivedAt = Timestamp.now().truncatedToMicroseconds
        let deadline = ContinuousClock.now + configuration.requestTimeout
        // The keys as they are now, for the whole request: a reload meanwhile does not touch it.
        let keys = collector.keys
        // A key in the header is checked before the body is read: a wrong one costs nothing.
        let headerKey = Credentials.headerKey(request.headers)
        var sender = try headerKey.map { try Self.sender(key: $0, in: keys) }
        let reader = BodyReader(
            limits: .init(maxRequestBytes: configuration.maxRequestBytes, inflate: configuration.inflate)
        )
        let body = try await reader.read(request)
        if sender == nil {
            let bodyKey = body.withUnsafeBufferPointer { Credentials.bodyKey($0) }
            if let bodyKey {
                sender = try Self.sender(key: bodyKey, in: keys)
            } else if let anonymous = keys.anonymous {
                sender = anonymous
            } else {
                throw CollectorError(.unauthorized, .unauthorized, "a write key is required")
            }
        }
        guard let sender else { throw CollectorError(.unauthorized, .unauthorized, "a write key is required") }
        if let rotated = sender.rotatedKeyID { collector.metrics.rotatedKeyUsed(rotated) }
        let decoder = PayloadDecoder(kind: kind, sender: sender, requestID: context.id, receivedAt: receivedAt)
        let decoded: PayloadDecoder.Decoded
        do {
            decoded = try decoder.decode(body)
        } catch var error as CollectorError
            where error.code == .invalidJSON && Self.isFormEncoded(request) && Self.linesRunTogether(body)
        {
            // `curl -d @events.ndjson` sends a form and drops the file's newlines: the lines run
            // together into one invalid document, and the error alone does not say why.
            error.message +=
                "; the body was sent as a form and its lines ran together, as when curl -d drops a file's "
                + "newlines: send it with --data-binary @FILE -H 'Content-Type: application/x-ndjson'"
            throw error
        }
        let outcome = await collector.committer.commit(
            events: decoded.events,
            rejects: decoded.rejects,
            deadline: deadline
        )
        switch outcome {
        case .committed: break
        case .queueFull:
            throw CollectorError(.tooManyRequests, .queueFull, "too many events are waiting to be stored; retry later")
        case .unavailable:
            throw CollectorError(.serviceUnavailable, .unavailable, "the store is unavailable; retry later")
        case .timedOut:
            throw CollectorError(
                .serviceUnavailable,
                .unavailable,
                "the events could not be stored in time; retry later"
            )
        case .shuttingDown:
            throw CollectorError(.serviceUnavailable, .shuttingDown, "the collector is shutting down; retry later")
        }
        collector.metrics.eventsAccepted.increment(by: decoded.events.count)
        if decoded.futurePlaced > 0 { collector.metrics.eventsFromFuture.increment(by: decoded.futurePlaced) }
        for reject in decoded.rejects { collector.metrics.rejected(reject.reason.code) }
        let reply: [UInt8]
        switch kind {
        case .tally: reply = Self.tallyReply(decoded)
        case .segmentBatch, .segmentCall: reply = Self.segmentReply(decoded)
        case .sharedBatch:
            reply = decoded.format == .posthog ? Array(#"{"status":1}"#.utf8) : Self.segmentReply(decoded)
        case .posthog: reply = kind.successReply ?? []
        }
        return Response(
            status: .ok,
            headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: reply))
        )
    }

    /// Whether the request says its body is a form (curl's `-d` default).
    static func isFormEncoded(_ request: Request) -> Bool {
        request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true
    }

    /// Whether `body` looks like NDJSON whose newlines were dropped (`}{` and no newline): what
    /// `curl -d` makes of a file, unlike `--data-binary`, which sends the same form type.
    static func linesRunTogether(_ body: [UInt8]) -> Bool {
        guard !body.contains(UInt8(ascii: "\n")) else { return false }
        var previous: UInt8 = 0
        for byte in body where byte != 0x20 && byte != 0x09 && byte != 0x0D {
            if previous == UInt8(ascii: "}"), byte == UInt8(ascii: "{") { return true }
            previous = byte
        }
        return false
    }

    /// `{"accepted":N,"rejected":[{"index":I,"reason":"…","path":"…","message":"…"}]}`.
    static func tallyReply(_ decoded: PayloadDecoder.Decoded) -> [UInt8] {
        var bytes = Array(#"{"accepted":"#.utf8)
        JSONWriter.appendInteger(Int64(decoded.events.count), to: &bytes)
        bytes.append(UInt8(ascii: ","))
        appendRejected(decoded, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// Segment's `{"success":true}`, with tally's `"rejected":[…]` beside it when the plans refused
    /// events of the batch (its `index` is the message's position in `batch`). Segment's clients
    /// read the status only; tally's uploader counts the rejects on either wire.
    static func segmentReply(_ decoded: PayloadDecoder.Decoded) -> [UInt8] {
        guard !decoded.rejects.isEmpty else { return Array(#"{"success":true}"#.utf8) }
        var bytes = Array(#"{"success":true,"#.utf8)
        appendRejected(decoded, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// `"rejected":[{"index":I,"reason":"…","path":"…","message":"…"}]`.
    private static func appendRejected(_ decoded: PayloadDecoder.Decoded, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: #""rejected":["#.utf8)
        for (position, reject) in decoded.rejects.enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            let index = if case .request(_, let index, _) = reject.origin { index } else { position }
            bytes.append(contentsOf: #"{"index":"#.utf8)
            JSONWriter.appendInteger(Int64(index), to: &bytes)
            bytes.append(contentsOf: #","reason":"#.utf8)
            JSONWriter.appendString(reject.reason.code, to: &bytes)
            bytes.append(contentsOf: #","path":"#.utf8)
            JSONWriter.appendString(reject.reason.path ?? "$", to: &bytes)
            bytes.append(contentsOf: #","message":"#.utf8)
            JSONWriter.appendString(reject.reason.message, to: &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(UInt8(ascii: "]"))
    }

    private static func sender(key: [UInt8], in keys: WriteKeyTable) throws -> WriteKeyTable.Sender {
        guard let sender = keys.sender(key: key) else {
            throw CollectorError(.unauthorized, .unauthorized, "unknown write key")
        }
        return sender
    }

    /// What Segment's mobile SDKs fetch at start: the Segment.io destination pointed at this
    /// collector (`apiHost`), an open tracking plan, no edge function.
    func settings(_ request: Request, _ context: BasicRequestContext) throws -> Response {
        guard let key = context.parameters.get("writeKey"), !key.isEmpty else {
            throw CollectorError(.unauthorized, .unauthorized, "a write key is required")
        }
        if collector.keys.sender(key: Array(key.utf8)) == nil {
            throw CollectorError(.unauthorized, .unauthorized, "unknown write key")
        }
        let host = request.head.authority ?? "\(configuration.host):\(configuration.port)"
        var bytes = Array(#"{"integrations":{"Segment.io":{"apiKey":"#.utf8)
        JSONWriter.appendString(key, to: &bytes)
        bytes.append(contentsOf: #","apiHost":"#.utf8)
        JSONWriter.appendString(host + "/v1", to: &bytes)
        bytes.append(
            contentsOf: #","unbundledIntegrations":[],"addBundledMetadata":true,"maybeBundledConfigIds":{}}},"#
                .utf8
        )
        bytes.append(
            contentsOf: #""plan":{"track":{"__default":{"enabled":true,"integrations":{}}},"#.utf8
        )
        bytes.append(
            contentsOf: #""identify":{"__default":{"enabled":true}},"group":{"__default":{"enabled":true}}},"#.utf8
        )
        bytes.append(
            contentsOf: #""edgeFunction":{},"analyticsNext":{},"middlewareSettings":{},"metrics":{"sampleRate":0}}"#
                .utf8
        )
        return Response(
            status: .ok,
            headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }

    func text(_ text: String) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text))
        )
    }

    /// 200 when the sinks answer, else 503.
    func readiness() async -> Response {
        let ready = await collector.committer.isReady()
        return Response(
            status: ready ? .ok : .serviceUnavailable,
            headers: [.contentType: "application/json"],
            body: ResponseBody(
                byteBuffer: ByteBuffer(string: ready ? #"{"status":"ready"}"# : #"{"status":"unavailable"}"#)
            )
        )
    }

    func metricsText() -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: collector.metrics.render()))
        )
    }
}
