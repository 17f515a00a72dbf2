import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import TallyPostgres
import TallySchema
import Testing

@testable import TallyServer

/// The real PostgreSQL sink and dead letters pointed at a port where no server listens: no 2xx,
/// 503 with Retry-After (the store's failure or the request timeout, whichever comes first on a
/// loaded machine: both answer so), and /readyz says so.
@Suite("Collector with its database down", .timeLimit(.minutes(5)))
struct UnavailableStoreTests {
    @Test("503 with Retry-After, nothing acknowledged; /readyz 503")
    func databaseDown() async throws {
        let conninfo = "postgresql://tally@127.0.0.1:9/tally?connect_timeout=2"
        var configuration = CollectorConfiguration()
        configuration.requestTimeout = .seconds(3)
        let collector = Collector(
            configuration: configuration,
            keys: WriteKeyTable(
                entries: [.init(sha256: WriteKeysFile.hash(RouterTests.key), source: "test")],
                validators: [:],
                fallback: EventValidator(registry: nil),
                allowAnonymous: false
            ),
            sink: PostgresSink(conninfo: conninfo),
            rejects: PostgresRejectSink(conninfo: conninfo),
            logger: Logger(label: "test")
        )
        let (response, ready) = try await collector.makeApplication().test(.router) { client in
            (
                try await client.execute(
                    uri: "/v1/events",
                    method: .post,
                    headers: RouterTests.bearer,
                    body: .init(bytes: RouterTests.ndjson(5))
                ),
                try await client.execute(uri: "/readyz", method: .get)
            )
        }
        #expect(response.status == .serviceUnavailable)
        #expect(response.headers[.retryAfter] == "5")
        #expect(try RouterTests.errorCode(response) == "unavailable")
        #expect(ready.status == .serviceUnavailable)
    }
}
