import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import TallyCompression
import TallyCore
import TallyPipelineTesting
import TallySchema
import Testing

@testable import TallyServer

/// Every route, key and limit of the contract, through the router (no sockets).
@Suite("Collector routes")
struct RouterTests {
    static let key = "test-key-0123456789"

    struct Fixture {
        let sink = InMemorySink()
        let rejects = InMemoryRejectSink()
        let collector: Collector

        init(
            configure: (inout CollectorConfiguration) -> Void = { _ in },
            allowAnonymous: Bool = false,
            withKeys: Bool = true
        ) {
            var configuration = CollectorConfiguration()
            configuration.port = 0
            // Generous: the whole suite runs in parallel on two cores, and some tests block threads.
            configuration.requestTimeout = .seconds(120)
            configuration.allowAnonymous = allowAnonymous
            configure(&configuration)
            let keys = WriteKeyTable(
                entries: withKeys
                    ? [.init(sha256: WriteKeysFile.hash(RouterTests.key), source: "test-app", feature: "shop")] : [],
                validators: [:],
                fallback: EventValidator(registry: nil, limits: ValidationLimits(maxEventBytes: 32 * 1024)),
                allowAnonymous: allowAnonymous
            )
            collector = Collector(
                configuration: configuration,
                keys: keys,
                sink: sink,
                rejects: rejects,
                logger: Logger(label: "test")
            )
        }

        func test<T: Sendable>(_ body: @Sendable (any TestClientProtocol) async throws -> T) async throws -> T {
            try await collector.makeApplication().test(.router) { client in try await body(client) }
        }
    }

    static let bearer: HTTPFields = [.authorization: "Bearer \(key)"]

    static func ndjson(_ count: Int, start: Int = 0) -> [UInt8] {
        var text = ""
        for index in start..<(start + count) {
            text +=
                #"{"event_id":"0190c5a2-0000-7000-8000-\#(String(format: "%012d", index))","name":"episode_list_viewed","occurred_at":"2026-11-22T10:00:00.000Z","sent_at":"2026-11-22T10:00:05.000Z"}"#
                + "\n"
        }
        return Array(text.utf8)
    }

    static func json(_ response: TestResponse) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any] ?? [:]
    }

    static func errorCode(_ response: TestResponse) throws -> String? {
        (try json(response)["error"] as? [String: Any])?["code"] as? String
    }

    @Test("tally NDJSON, gzip, with a trailing slash: 200, every event stored, X-Request-Id")
    func tallyGzip() async throws {
        let fixture = Fixture()
        let body = Deflater.compress(Self.ndjson(10), format: .gzip)
        let response = try await fixture.test { client in
            try await client.execute(
                uri: "/v1/events/",
                method: .post,
                headers: Self.bearer + [.contentEncoding: "gzip", .contentType: "application/x-ndjson"],
                body: ByteBuffer(bytes: body)
            )
        }
        #expect(response.status == .ok)
        #expect(try Self.json(response)["accepted"] as? Int == 10)
        #expect(RequestIDTests.isWellFormed(response.headers[.requestID]))
        #expect(fixture.sink.eventCount == 10)
        let event = try #require(fixture.sink.events.first)
        #expect(event.receivedAt != nil)
        #expect(event.feature == "shop")  // the key's feature
    }

    @Test("deflate (zlib and raw) and gzip told by its magic bytes")
    func encodings() async throws {
        let fixture = Fixture()
        let statuses = try await fixture.test { client in
            var statuses: [HTTPResponse.Status] = []
            for (body, encoding) in [
                (Deflater.compress(Self.ndjson(2), format: .deflate), "deflate"),
                (Deflater.compress(Self.ndjson(2, start: 2), format: .deflate, raw: true), "deflate"),
                (Deflater.compress(Self.ndjson(2, start: 4), format: .gzip), nil),
            ] {
                var headers = Self.bearer
                if let encoding { headers[.contentEncoding] = encoding }
                statuses.append(
                    try await client.execute(
                        uri: "/v1/events",
                        method: .post,
                        headers: headers,
                        body: .init(bytes: body)
                    )
                    .status
                )
            }
            return statuses
        }
        #expect(statuses == [.ok, .ok, .ok])
        #expect(fixture.sink.eventCount == 6)
    }

    @Test("a JSON array of envelopes; a rejected event is listed with index, reason and path, and dead-lettered")
    func arrayAndRejects() async throws {
        let fixture = Fixture()
        let body = #"""
            [{"name":"episode_list_viewed","occurred_at":"2026-11-22T10:00:00Z"},
             {"name":"episode_played","occurred_at":"yesterday"},
             {"name":"episode_played","occurred_at":"2026-11-22T10:00:01Z"}]
            """#
        let response = try await fixture.test { client in
            try await client.execute(uri: "/v1/events", method: .post, headers: Self.bearer, body: .init(string: body))
        }
        #expect(response.status == .ok)
        let reply = try Self.json(response)
        #expect(reply["accepted"] as? Int == 2)
        let rejected = try #require(reply["rejected"] as? [[String: Any]])
        #expect(rejected.count == 1)
        #expect(rejected.first?["index"] as? Int == 1)
        #expect(rejected.first?["reason"] as? String == "invalid_timestamp")
        #expect(rejected.first?["path"] as? String == "$.occurred_at")
        #expect(fixture.rejects.rejects.map(\.index) == [1])
        #expect(fixture.rejects.rejects.first?.requestID == response.headers[.requestID])
        #expect(fixture.sink.eventCount == 2)
    }

    @Test("keys: Basic, Bearer, body writeKey / api_key / token accepted; wrong or missing: 401, nothing stored")
    func keys() async throws {
        let fixture = Fixture()
        let basic = Data("\(Self.key):".utf8).base64EncodedString()
        let segment =
            #"{"writeKey":"\#(Self.key)","batch":[{"type":"track","event":"A","userId":"u","messageId":"s1","timestamp":"2026-11-22T10:00:00Z"}]}"#
        let posthog =
            #"{"api_key":"\#(Self.key)","event":"$pageview","distinct_id":"d","uuid":"0190c5a2-0000-7000-8000-000000000099","timestamp":"2026-11-22T10:00:00Z"}"#
        let token =
            #"[{"token":"\#(Self.key)","event":"$pageview","distinct_id":"d","timestamp":"2026-11-22T10:00:01Z"}]"#
        let results = try await fixture.test { client in
            [
                try await client.execute(
                    uri: "/v1/events",
                    method: .post,
                    headers: [.authorization: "Basic \(basic)"],
                    body: .init(bytes: Self.ndjson(1))
                ).status,
                try await client.execute(uri: "/v1/batch", method: .post, body: .init(string: segment)).status,
                try await client.execute(uri: "/capture/", method: .post, body: .init(string: posthog)).status,
                try await client.execute(uri: "/e", method: .post, body: .init(string: token)).status,
                try await client.execute(
                    uri: "/v1/events",
                    method: .post,
                    headers: [.authorization: "Bearer wrong"],
                    body: .init(bytes: Self.ndjson(1, start: 50))
                ).status,
                try await client.execute(
                    uri: "/v1/events",
                    method: .post,
                    body: .init(bytes: Self.ndjson(1, start: 60))
                )
                .status,
                try await client.execute(
                    uri: "/v1/batch",
                    method: .post,
                    body: .init(string: segment.replacingOccurrences(of: Self.key, with: "nope"))
                ).status,
            ]
        }
        #expect(results == [.ok, .ok, .ok, .ok, .unauthorized, .unauthorized, .unauthorized])
        #expect(fixture.sink.eventCount == 4)
    }

    @Test("--allow-anonymous: no key accepted as source anonymous, a wrong key still 401")
    func anonymous() async throws {
        let fixture = Fixture(allowAnonymous: true)
        let statuses = try await fixture.test { client in
            [
                try await client.execute(uri: "/v1/events", method: .post, body: .init(bytes: Self.ndjson(1))).status,
                try await client.execute(
                    uri: "/v1/events",
                    method: .post,
                    headers: [.authorization: "Bearer wrong"],
                    body: .init(bytes: Self.ndjson(1, start: 1))
                ).status,
            ]
        }
        #expect(statuses == [.ok, .unauthorized])
    }

    @Test("a Segment call and a PostHog capture without a time are stored at the time they arrived")
    func arrivalTime() async throws {
        let fixture = Fixture()
        let statuses = try await fixture.test { client in
            [
                try await client.execute(
                    uri: "/v1/track",
                    method: .post,
                    headers: Self.bearer,
                    body: .init(string: #"{"event":"Order Completed","userId":"u1","properties":{"total":3}}"#)
                ).status,
                try await client.execute(
                    uri: "/capture/",
                    method: .post,
                    body: .init(string: #"{"api_key":"\#(Self.key)","event":"signed_up","distinct_id":"d1"}"#)
                ).status,
            ]
        }
        #expect(statuses == [.ok, .ok])
        #expect(fixture.rejects.rejects.isEmpty)
        let events = fixture.sink.events
        #expect(events.count == 2)
        for event in events { #expect(event.occurredAt == event.receivedAt) }
    }

    @Test("--allow-anonymous without keys: a key cannot be checked, so any key is taken as no key")
    func anonymousWithoutKeys() async throws {
        let fixture = Fixture(allowAnonymous: true, withKeys: false)
        let segment =
            #"{"writeKey":"an-app-key","batch":[{"type":"track","event":"Signed Up","userId":"u1","messageId":"m1","timestamp":"2026-11-22T10:00:00Z"}]}"#
        let statuses = try await fixture.test { client in
            [
                try await client.execute(
                    uri: "/v1/events",
                    method: .post,
                    headers: [.authorization: "Bearer any-key"],
                    body: .init(bytes: Self.ndjson(1))
                ).status,
                try await client.execute(uri: "/v1/batch", method: .post, body: .init(string: segment)).status,
                try await client.execute(uri: "/v1/projects/an-app-key/settings", method: .get).status,
            ]
        }
        #expect(statuses == [.ok, .ok, .ok])
        #expect(fixture.sink.eventCount == 2)
    }

    @Test("Segment routes answer {\"success\":true}, PostHog's {\"status\":1}; /batch is told apart by its body")
    func formats() async throws {
        let fixture = Fixture()
        let segmentBatch =
            #"{"batch":[{"type":"track","event":"Order Completed","userId":"u1","messageId":"m1","timestamp":"2026-11-22T10:00:00Z"},{"type":"identify","userId":"u1","messageId":"m2","traits":{"plan":"pro"},"timestamp":"2026-11-22T10:00:00Z"}],"sentAt":"2026-11-22T10:00:02Z"}"#
        let posthogBatch =
            #"{"api_key":"k","batch":[{"event":"$pageview","distinct_id":"d1","timestamp":"2026-11-22T10:00:00Z"}],"sent_at":"2026-11-22T10:00:02Z"}"#
        let single = #"{"event":"Signed Up","userId":"u2","messageId":"m3","timestamp":"2026-11-22T10:00:00Z"}"#
        let replies = try await fixture.test { client in
            var replies: [String] = []
            for (uri, body) in [
                ("/v1/batch", segmentBatch), ("/v1/b", segmentBatch), ("/b/", segmentBatch), ("/batch", segmentBatch),
                ("/batch/", posthogBatch), ("/i/v0/e/", posthogBatch), ("/v1/track", single),
            ] {
                let response = try await client.execute(
                    uri: uri,
                    method: .post,
                    headers: Self.bearer,
                    body: .init(string: body)
                )
                replies.append("\(response.status.code) \(String(buffer: response.body))")
            }
            return replies
        }
        #expect(
            replies == [
                #"200 {"success":true}"#, #"200 {"success":true}"#, #"200 {"success":true}"#,
                #"200 {"success":true}"#, #"200 {"status":1}"#, #"200 {"status":1}"#, #"200 {"success":true}"#,
            ]
        )
        // Re-sent batches carry the same ids: the store deduplicates them.
        #expect(Set(fixture.sink.events.map(\.eventID)).count == 4)
        #expect(fixture.sink.events.contains { $0.name == "Signed Up" && $0.kind == .track })
        #expect(fixture.sink.events.contains { $0.kind == .identify })
    }

    @Test(
        "a Segment message that cannot be mapped is dead-lettered with its raw JSON, the rest stored; Segment's reply lists it"
    )
    func segmentReject() async throws {
        let fixture = Fixture()
        let body =
            #"{"batch":[{"type":"track","event":"A","userId":"u","messageId":"ok","timestamp":"2026-11-22T10:00:00Z"},{"type":"track","event":"B","userId":"u","messageId":"bad","timestamp":"not a time"}]}"#
        let response = try await fixture.test { client in
            try await client.execute(uri: "/v1/batch", method: .post, headers: Self.bearer, body: .init(string: body))
        }
        #expect(response.status == .ok)
        #expect(fixture.sink.eventCount == 1)
        let reject = try #require(fixture.rejects.rejects.first)
        #expect(reject.index == 1)
        #expect(reject.reason.code == "invalid_timestamp")
        #expect(String(decoding: reject.eventJSON, as: UTF8.self).contains(#""messageId":"bad""#))
        // Segment's answer, with tally's list beside it (Segment's clients read the status only).
        let reply = try Self.json(response)
        #expect(reply["success"] as? Bool == true)
        let rejected = try #require(reply["rejected"] as? [[String: Any]])
        #expect(rejected.count == 1 && rejected.first?["index"] as? Int == 1)
        #expect(rejected.first?["reason"] as? String == "invalid_timestamp")
    }

    @Test("bad bodies: 400 with the reason, nothing stored")
    func badBodies() async throws {
        let fixture = Fixture()
        let gzip = Deflater.compress(Self.ndjson(20), format: .gzip)
        let codes = try await fixture.test { client in
            var codes: [String] = []
            for (body, headers) in [
                (Array(#"{"name": "#.utf8), Self.bearer),
                (Array(gzip.dropLast(12)), Self.bearer + [.contentEncoding: "gzip"]),
                ([0x1f, 0x8b, 0x08, 0x00, 0x13, 0x37, 0x42], Self.bearer),
                (Array("  \n".utf8), Self.bearer),
            ] {
                let response = try await client.execute(
                    uri: "/v1/events",
                    method: .post,
                    headers: headers,
                    body: .init(bytes: body)
                )
                codes.append("\(response.status.code) \(try Self.errorCode(response) ?? "")")
            }
            return codes
        }
        #expect(
            codes == [
                "400 invalid_json", "400 invalid_encoding", "400 invalid_encoding", "400 no_events",
            ]
        )
        // `curl -d @file` sends a form without the file's newlines: the answer says so.
        let joined = Self.ndjson(2).filter { $0 != UInt8(ascii: "\n") }
        // `--data-binary` sends the same form type but keeps the newlines: a broken line is just
        // invalid JSON, and the hint would mislead.
        let broken = Self.ndjson(2) + Array("{\"name\":\n".utf8)
        let (form, binary) = try await fixture.test { client in
            let headers: HTTPFields = Self.bearer + [.contentType: "application/x-www-form-urlencoded"]
            return (
                try await client.execute(
                    uri: "/v1/events",
                    method: .post,
                    headers: headers,
                    body: .init(bytes: joined)
                ),
                try await client.execute(uri: "/v1/events", method: .post, headers: headers, body: .init(bytes: broken))
            )
        }
        #expect(form.status == .badRequest)
        #expect(String(buffer: form.body).contains("--data-binary"), "\(String(buffer: form.body))")
        #expect(binary.status == .badRequest)
        #expect(try Self.errorCode(binary) == "invalid_json")
        #expect(!String(buffer: binary.body).contains("--data-binary"), "\(String(buffer: binary.body))")
        #expect(fixture.sink.eventCount == 0)
        #expect(fixture.rejects.rejects.isEmpty)
    }

    @Test("limits: 413 for a body over the request limit and for a bomb, 415 for an unknown encoding")
    func limits() async throws {
        let fixture = Fixture { $0.maxRequestBytes = 100_000 }
        let bomb = Deflater.compress([UInt8](repeating: 0x20, count: 50 << 20), format: .gzip, level: 9)
        let statuses = try await fixture.test { client in
            [
                try await client.execute(
                    uri: "/v1/events",
                    method: .post,
                    headers: Self.bearer,
                    body: .init(bytes: Self.ndjson(1000))
                ),
                try await client.execute(
                    uri: "/v1/events",
                    method: .post,
                    headers: Self.bearer + [.contentEncoding: "gzip"],
                    body: .init(bytes: bomb)
                ),
                try await client.execute(
                    uri: "/v1/events",
                    method: .post,
                    headers: Self.bearer + [.contentEncoding: "br"],
                    body: .init(bytes: Self.ndjson(1))
                ),
            ].map { "\($0.status.code) \((try? Self.errorCode($0)) ?? "")" }
        }
        #expect(bomb.count < 100_000)
        #expect(statuses == ["413 request_too_large", "413 decompressed_too_large", "415 unsupported_encoding"])
        #expect(fixture.sink.eventCount == 0)
    }

    @Test(
        "404 for an unknown route, 405 for a wrong method, the settings route, health, readiness and metrics without keys"
    )
    func otherRoutes() async throws {
        let fixture = Fixture()
        let (notFound, wrongMethod, settings, settingsPost, health, ready, metrics) = try await fixture.test { client in
            _ = try await client.execute(
                uri: "/v1/events",
                method: .post,
                headers: Self.bearer,
                body: .init(bytes: Self.ndjson(3))
            )
            return (
                try await client.execute(uri: "/v1/nothing", method: .post),
                try await client.execute(uri: "/v1/events/", method: .get),
                try await client.execute(uri: "/v1/projects/\(Self.key)/settings", method: .get),
                try await client.execute(uri: "/v1/projects/\(Self.key)/settings/", method: .post),
                try await client.execute(uri: "/healthz", method: .get),
                try await client.execute(uri: "/readyz/", method: .get),
                try await client.execute(uri: "/metrics", method: .get)
            )
        }
        #expect(notFound.status == .notFound)
        #expect(wrongMethod.status == .methodNotAllowed)
        #expect(wrongMethod.headers[.allow] == "POST")
        #expect(notFound.headers[.requestID] != nil)
        #expect(settings.status == .ok)
        #expect(settingsPost.status == .methodNotAllowed)
        #expect(settingsPost.headers[.allow] == "GET, HEAD")
        let integrations = try Self.json(settings)["integrations"] as? [String: Any]
        #expect((integrations?["Segment.io"] as? [String: Any])?["apiKey"] as? String == Self.key)
        #expect(health.status == .ok)
        #expect(ready.status == .ok)
        let text = String(buffer: metrics.body)
        #expect(text.contains("tally_collector_events_accepted_total 3"))
        #expect(text.contains(#"route="/v1/events""#))
        #expect(text.contains(#"route="unmatched""#) && !text.contains("NotFound"))
        #expect(!text.contains(Self.key))
    }
}
