import HTTPTypes
package import Hummingbird
package import Logging
import NIOCore
import TallyCore
import TallyReports

/// `tally dashboard`: the pages and the JSON API over one store, behind reader keys.
package final class Dashboard: Sendable {
    package let context: DashboardContext
    package let keys: ReaderKeys
    let logger: Logger

    package init(context: DashboardContext, keys: ReaderKeys, logger: Logger) {
        self.context = context
        self.keys = keys
        self.logger = logger
    }

    /// The routes, for the server and for router tests.
    package func makeRouter() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: DashboardMiddleware(keys: keys, store: context.store.headline, logger: logger))
        router.get("/healthz") { _, _ in Self.response(.ok, #"{"status":"ok"}"# + "\n", type: "application/json") }
        let pages: [(String, @Sendable (PageLayout, DashboardContext) async throws -> String)] = [
            ("/", { await OverviewPage.render($0, $1) }),
            ("/events", { await EventsPage.render($0, $1) }),
            ("/funnels", { await FunnelsPage.render($0, $1) }),
            ("/retention", { await RetentionPage.render($0, $1) }),
            ("/plans", { await PlansPage.render($0, $1) }),
            ("/reports", { try await SavedReportsPage.render($0, $1, name: nil) }),
        ]
        for (path, render) in pages {
            let title = PageLayout.pages.first { $0.0 == path }?.1 ?? "tally"
            router.get(RouterPath(path)) { request, _ in
                let layout = try self.layout(request, path: path, title: title)
                return Self.response(.ok, try await render(layout, self.context), type: "text/html; charset=utf-8")
            }
        }
        router.get("/reports/{name}") { request, context in
            let name = context.parameters.get("name") ?? ""
            let layout = try self.layout(request, path: "/reports/\(name)", title: "Saved report: \(name)")
            let page = try await SavedReportsPage.render(layout, self.context, name: name)
            return Self.response(.ok, page, type: "text/html; charset=utf-8")
        }
        let api = DashboardAPI(context: context)
        router.get("/api/v1/report/{kind}") { request, context in
            let (text, format) = try await api.report(
                kind: context.parameters.get("kind") ?? "",
                try Self.parameters(request)
            )
            return Self.response(.ok, text, format: format)
        }
        router.post("/api/v1/report") { request, _ in
            let body = try await request.body.collect(upTo: 256 * 1024)
            return Self.response(.ok, try await api.posted(Array(buffer: body)), type: "application/json")
        }
        router.get("/api/v1/reports") { _, _ in Self.response(.ok, api.savedList(), type: "application/json") }
        router.get("/api/v1/reports/{name}") { request, context in
            let (text, format) = try await api.saved(context.parameters.get("name") ?? "", try Self.parameters(request))
            return Self.response(.ok, text, format: format)
        }
        return router
    }

    func layout(_ request: Request, path: String, title: String) throws -> PageLayout {
        PageLayout(path: path, title: title, parameters: try Self.parameters(request), store: context.store.headline)
    }

    static func parameters(_ request: Request) throws -> ReportParameters {
        guard let pairs = QueryString.parse(request.uri.query) else {
            throw DashboardError.badRequest("the query has a broken %-escape")
        }
        return ReportParameters(QueryString.values(pairs))
    }

    static func response(_ status: HTTPResponse.Status, _ text: String, format: DashboardAPI.Format) -> Response {
        var response = response(status, text, type: format == .csv ? "text/csv; charset=utf-8" : "application/json")
        if format == .csv { response.headers[.contentDisposition] = "attachment; filename=\"report.csv\"" }
        return response
    }

    static func response(_ status: HTTPResponse.Status, _ text: String, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        // Pages hold no script and load nothing from elsewhere: the policy says so to the browser.
        headers[.contentSecurityPolicy] =
            "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        headers[.xContentTypeOptions] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// The HTTP server as a service; `onListening` gets the bound port once it listens.
    package func makeApplication(host: String, port: Int, onListening: @escaping @Sendable (Int) async -> Void)
        -> some ApplicationProtocol
    {
        Application(
            router: makeRouter(),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) },
            logger: logger
        )
    }
}

/// Around every route: reader keys (all but `/healthz`), and errors as pages or API answers with a
/// message of the dashboard's own (never the store's error text).
struct DashboardMiddleware<Context: RequestContext>: RouterMiddleware {
    let keys: ReaderKeys
    let store: String
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let isAPI = request.uri.path.hasPrefix("/api/")
        if request.uri.path != "/healthz", !keys.isEmpty, !keys.admits(request.headers) {
            var response = reply(
                DashboardError(.unauthorized, "a reader key is needed (tally keys add --reader)"),
                api: isAPI,
                request: request
            )
            response.headers[.wwwAuthenticate] = "Basic realm=\"tally dashboard\", charset=\"UTF-8\""
            return response
        }
        do {
            return try await next(request, context)
        } catch let error as DashboardError {
            var response = reply(error, api: isAPI, request: request)
            if error.status == .serviceUnavailable { response.headers[.retryAfter] = "30" }
            return response
        } catch let error as HTTPError {
            let message = error.status == .notFound ? "no such page" : (error.body ?? error.status.reasonPhrase)
            return reply(DashboardError(error.status, message), api: isAPI, request: request)
        } catch {
            logger.error("dashboard request failed", metadata: ["tally.error": "\(error)"])
            return reply(DashboardError.storeUnavailable, api: isAPI, request: request)
        }
    }

    func reply(_ error: DashboardError, api: Bool, request: Request) -> Response {
        if api {
            let text = JSONWriter.text(
                .object([
                    JSONMember(key: "error", value: .string(String(error.status.code))),
                    JSONMember(key: "message", value: .string(error.message)),
                ])
            )
            return Dashboard.response(error.status, text + "\n", type: "application/json")
        }
        let parameters =
            (QueryString.parse(request.uri.query)).map { ReportParameters(QueryString.values($0)) }
            ?? ReportParameters([:])
        let layout = PageLayout(
            path: request.uri.path,
            title: error.status.reasonPhrase,
            parameters: parameters,
            store: store
        )
        return Dashboard.response(error.status, layout.error(error.message), type: "text/html; charset=utf-8")
    }
}
