package import Hummingbird
import HummingbirdCore
package import Logging
import NIOCore
import ServiceLifecycle
import TallyCore
package import TallyPipeline

/// `tally serve`: the HTTP collector. Builds the routes over a ``GroupCommitter`` and the
/// Hummingbird application that runs both (one `ServiceGroup`: committer first, so that on
/// shutdown the server stops and answers what is in flight before the committer writes the rest
/// and closes the sinks).
package final class Collector: Sendable {
    package let configuration: CollectorConfiguration
    package let committer: GroupCommitter
    package let metrics: CollectorMetrics
    /// The keys, replaced whole when the keys file is reloaded: a request reads them once, so one
    /// in flight during a reload finishes with the keys it started with.
    private let keyTable: Locked<WriteKeyTable>
    let logger: Logger

    /// A collector writing events to `sink` and rejected events to `rejects`.
    package init(
        configuration: CollectorConfiguration,
        keys: WriteKeyTable,
        sink: any EventSink,
        rejects: any RejectSink,
        logger: Logger
    ) {
        self.configuration = configuration
        keyTable = Locked(keys)
        self.logger = logger
        let metrics = CollectorMetrics()
        self.metrics = metrics
        metrics.keysLoaded(keys)
        committer = GroupCommitter(
            sink: sink,
            rejects: rejects,
            configuration: .init(
                maxPendingEvents: configuration.maxPendingEvents,
                maxRoundEvents: configuration.maxRoundEvents
            ),
            metrics: metrics,
            logger: logger
        )
    }

    /// The keys requests are checked against now.
    package var keys: WriteKeyTable { keyTable.withLock { $0 } }

    /// Checks the requests that start from now on against `keys`.
    package func replaceKeys(_ keys: WriteKeyTable) {
        keyTable.withLock { $0 = keys }
        metrics.keysLoaded(keys)
    }

    /// The routes, for the server and for router tests.
    package func makeRouter() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        let posts: [(String, PayloadKind)] =
            [
                ("/v1/events", .tally),
                ("/v1/batch", .segmentBatch), ("/v1/b", .segmentBatch), ("/b", .segmentBatch),
                ("/batch", .sharedBatch),
                ("/capture", .posthog), ("/e", .posthog), ("/i/v0/e", .posthog),
            ] + ["track", "screen", "page", "identify", "group", "alias"].map { ("/v1/\($0)", .segmentCall($0)) }
        let routes = CollectorRoutes(collector: self)
        let gets: [(String, @Sendable (Request, BasicRequestContext) async throws -> Response)] = [
            ("/v1/projects/{writeKey}/settings", { request, context in try routes.settings(request, context) }),
            ("/healthz", { _, _ in routes.text(#"{"status":"ok"}"#) }),
            ("/readyz", { _, _ in await routes.readiness() }),
            ("/metrics", { _, _ in routes.metricsText() }),
        ]
        var methods = Dictionary(uniqueKeysWithValues: posts.map { ($0.0, "POST") })
        for (path, _) in gets { methods[path] = "GET, HEAD" }
        router.add(
            middleware: CollectorMiddleware(
                metrics: metrics,
                requestIDs: RequestIDGenerator(),
                retryAfterSeconds: configuration.retryAfterSeconds,
                methodsByPath: methods
            )
        )
        for (path, kind) in posts {
            router.post(RouterPath(path)) { request, context in try await routes.ingest(request, context, kind) }
        }
        for (path, handler) in gets {
            router.get(RouterPath(path), use: handler)
            // HEAD is GET without the body: load balancers and `curl -I` check health so.
            router.head(RouterPath(path)) { request, context in
                var response = try await handler(request, context)
                response.body = ResponseBody()
                return response
            }
        }
        return router
    }

    /// The HTTP server as a service; `onListening` gets the bound port once it listens.
    package func makeApplication(onListening: @escaping @Sendable (Int) async -> Void = { _ in })
        -> some ApplicationProtocol
    {
        let readTimeout = TimeAmount.nanoseconds(Self.nanoseconds(configuration.readTimeout))
        let maxRequestBytes = configuration.maxRequestBytes
        let http1 = HTTP1Channel.Configuration(
            idleTimeout: .nanoseconds(Self.nanoseconds(configuration.idleTimeout)),
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: configuration.maxHeaderBytes,
                maxHeaderListSize: configuration.maxHeaderBytes,
                maxHeaderFieldCount: configuration.maxHeaderCount
            )
        )
        let server = HTTPServerBuilder { responder in
            CollectorHTTP1Channel(
                responder: responder,
                configuration: http1,
                readTimeout: readTimeout,
                maxRequestBytes: maxRequestBytes
            )
        }
        return Application(
            router: makeRouter(),
            server: server,
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port),
                serverName: nil,
                availableConnectionsDelegate: MaximumAvailableConnections(configuration.maxConnections, logger: logger)
            ),
            // The committer runs inside the application's service group, before the server: on
            // shutdown the server stops accepting and answers what is in flight first, then the
            // committer writes what is pending and closes the sinks.
            services: [committer],
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) },
            logger: logger
        )
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.nanoseconds
    }
}
