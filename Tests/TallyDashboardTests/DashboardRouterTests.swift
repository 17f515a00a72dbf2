import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import TallyCore
import TallyFileStore
import Testing

@testable import TallyDashboard
@testable import TallyServer

/// The dashboard's routes over a real file store, in process: keys, the API's answers against the
/// events written, bad input as 400 with the dashboard's own message, and the headers every reply
/// carries. The browser suite (Tests/dashboard) runs the same pages in Chromium over both stores.
@Suite("Dashboard routes")
struct DashboardRouterTests {
    static let readerKey = "reader-key-for-tests"
    static let bearer: HTTPFields = [.authorization: "Bearer \(readerKey)"]
    static let day = Timestamp(nanosecondsSinceEpoch: 1_779_451_200_000_000_000)  // 2026-05-22T12:00:00Z
    static let range = "since=2026-05-01&until=2026-06-01"

    /// A file store holding `count` selections by distinct users on one day.
    static func store(_ count: Int) async throws -> String {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("tally-dashboard-\(UUID().uuidString)").path
        var generator = UUIDv7Generator(seed: 7)
        let events = (0..<count).map { index in
            EventEnvelope(
                eventID: generator.next(at: day),
                name: "episode_list_episode_selected",
                feature: "episode",
                properties: ["position": .integer(Int64(index % 5))],
                occurredAt: day,
                userID: "user-\(index)"
            )
        }
        let sink = FileSink(directory: directory)
        try await sink.write(events)
        try await sink.shutdown()
        return directory
    }

    static func test<T: Sendable>(
        events: Int = 12,
        _ body: @Sendable (any TestClientProtocol) async throws -> T
    ) async throws -> T {
        let directory = try await store(events)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let logger = Logger(label: "tally.dashboard.test")
        let store = DashboardStore(
            location: .file(directory: directory),
            headline: "file \(directory)",
            timeLimit: .seconds(60),
            logger: logger
        )
        let dashboard = Dashboard(
            context: DashboardContext(store: store, registry: nil, reportsDirectory: nil),
            keys: ReaderKeys(hashes: [WriteKeysFile.hash(readerKey)]),
            logger: logger
        )
        let application = Application(router: dashboard.makeRouter(), logger: logger)
        return try await application.test(.router) { client in try await body(client) }
    }

    @Test("a form's query: + is a space, %2B a plus, names repeat in order, a broken escape is refused")
    func queryString() throws {
        let pairs = try #require(QueryString.parse("step=a+b&step=c%2Bd&window=1d&empty="))
        #expect(pairs.map(\.0) == ["step", "step", "window", "empty"])
        #expect(QueryString.values(pairs)["step"] == ["a b", "c+d"])
        #expect(QueryString.parse("step=%zz") == nil)
        #expect(QueryString.parse(nil)?.isEmpty == true)
    }

    @Test("no key, a wrong key: 401 asking for Basic; a reader key as Bearer or Basic password: 200")
    func keys() async throws {
        let basic = Data("anyone:\(Self.readerKey)".utf8).base64EncodedString()
        let statuses = try await Self.test { client in
            [
                try await client.execute(uri: "/", method: .get).status,
                try await client.execute(uri: "/", method: .get, headers: [.authorization: "Bearer nope"]).status,
                try await client.execute(uri: "/", method: .get, headers: Self.bearer).status,
                try await client.execute(uri: "/", method: .get, headers: [.authorization: "Basic \(basic)"]).status,
                try await client.execute(uri: "/healthz", method: .get).status,
            ]
        }
        #expect(statuses == [.unauthorized, .unauthorized, .ok, .ok, .ok])
        let challenge = try await Self.test { client in
            try await client.execute(uri: "/api/v1/report/trends", method: .get).headers[.wwwAuthenticate]
        }
        #expect(challenge?.hasPrefix("Basic") == true)
    }

    @Test("the API counts what the store holds; CSV on request")
    func api() async throws {
        let (json, csv) = try await Self.test(events: 12) { client in
            let json = try await client.execute(
                uri: "/api/v1/report/trends?event=episode_list_episode_selected&\(Self.range)",
                method: .get,
                headers: Self.bearer
            )
            let csv = try await client.execute(
                uri: "/api/v1/report/breakdown?event=episode_list_episode_selected&by=properties.position"
                    + "&\(Self.range)&format=csv",
                method: .get,
                headers: Self.bearer
            )
            return (json, csv)
        }
        #expect(json.status == .ok)
        #expect(json.headers[.contentType] == "application/json")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(buffer: json.body)) as? [String: Any])
        let series = try #require((answer["series"] as? [[String: Any]])?.first)
        #expect((series["total"] as? NSNumber)?.intValue == 12)
        #expect(csv.status == .ok)
        #expect(csv.headers[.contentType]?.hasPrefix("text/csv") == true)
        let rows = String(buffer: csv.body).split(separator: "\n")
        #expect(rows.count == 1 + 5, "a header and one row per position: \(rows)")
    }

    @Test("bad input is 400 with the dashboard's message; an unknown kind or page is 404")
    func badInput() async throws {
        let replies = try await Self.test { client in
            [
                try await client.execute(uri: "/api/v1/report/funnel?step=a", method: .get, headers: Self.bearer),
                try await client.execute(
                    uri: "/api/v1/report/trends?event=a&tz=Mars/Olympus",
                    method: .get,
                    headers: Self.bearer
                ),
                try await client.execute(uri: "/api/v1/report/nothing", method: .get, headers: Self.bearer),
                try await client.execute(uri: "/nowhere", method: .get, headers: Self.bearer),
                try await client.execute(uri: "/events?event=%zz", method: .get, headers: Self.bearer),
            ]
        }
        #expect(replies.map(\.status) == [.badRequest, .badRequest, .notFound, .notFound, .badRequest])
        for reply in replies {
            let text = String(buffer: reply.body)
            #expect(!text.isEmpty)
            #expect(!text.contains("Error("), "no Swift error text: \(text)")
        }
        #expect(String(buffer: replies[0].body).contains("\"message\""))
    }

    @Test("every reply forbids scripts and framing, and is not cached")
    func headers() async throws {
        let replies = try await Self.test { client in
            [
                try await client.execute(uri: "/funnels", method: .get, headers: Self.bearer),
                try await client.execute(uri: "/", method: .get),
                try await client.execute(uri: "/api/v1/reports", method: .get, headers: Self.bearer),
            ]
        }
        for reply in replies {
            let policy = reply.headers[.contentSecurityPolicy] ?? ""
            #expect(policy.contains("default-src 'none'") && policy.contains("frame-ancestors 'none'"))
            #expect(reply.headers[.xContentTypeOptions] == "nosniff")
            #expect(reply.headers[.cacheControl] == "no-store")
        }
        #expect(!String(buffer: replies[0].body).contains("<script"))
    }

    @Test("a report posted as JSON runs; a broken body is 400")
    func posted() async throws {
        let report =
            #"{"kind":"trends","events":["episode_list_episode_selected"],"range":{"since":"2026-05-01","until":"2026-06-01"}}"#
        let replies = try await Self.test { client in
            [
                try await client.execute(
                    uri: "/api/v1/report",
                    method: .post,
                    headers: Self.bearer,
                    body: ByteBuffer(string: report)
                ),
                try await client.execute(
                    uri: "/api/v1/report",
                    method: .post,
                    headers: Self.bearer,
                    body: ByteBuffer(string: "{")
                ),
            ]
        }
        #expect(replies.map(\.status) == [.ok, .badRequest], "\(replies.map { String(buffer: $0.body) })")
    }
}
