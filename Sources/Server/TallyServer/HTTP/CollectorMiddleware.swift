import HTTPTypes
import Hummingbird
import Logging
import TallyCore

/// Around every route (matched or not): gives the request its id, turns errors into the
/// collector's JSON replies, stamps `X-Request-Id`, and counts the request by route pattern (never
/// its path, which may hold a write key) and status.
struct CollectorMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: CollectorMetrics
    let requestIDs: RequestIDGenerator
    let retryAfterSeconds: Int
    /// The methods of each route pattern (trailing slash left out, `{name}` for a parameter): a
    /// route asked with another method is answered 405 with `Allow`, not 404.
    let methodsByPath: [String: String]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let started = ContinuousClock.now
        // In place of Hummingbird's id (see RequestIDGenerator): `context.id` reads this one, so
        // the reply, the dead letters and the request's log lines all carry the same id.
        var context = context
        context.logger[metadataKey: "hb.request.id"] = .string(requestIDs.next())
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as CollectorError {
            response = Self.reply(error, retryAfter: retryAfterSeconds)
        } catch let error as HTTPError where error.status == .notFound && allowedMethod(request) != nil {
            response = Self.reply(
                CollectorError(.methodNotAllowed, .methodNotAllowed, "this route takes \(allowedMethod(request)!)"),
                retryAfter: retryAfterSeconds
            )
            response.headers[.allow] = allowedMethod(request)
        } catch let error as HTTPError {
            let code: CollectorError.Code =
                switch error.status {
                case .notFound: .notFound
                case .methodNotAllowed: .methodNotAllowed
                default: .invalidBody
                }
            response = Self.reply(
                CollectorError(error.status, code, error.body ?? error.status.reasonPhrase),
                retryAfter: retryAfterSeconds
            )
        } catch {
            context.logger.error("request failed", metadata: ["tally.error": "\(type(of: error))"])
            response = Self.reply(
                CollectorError(.internalServerError, .unavailable, "internal error"),
                retryAfter: retryAfterSeconds
            )
        }
        response.headers[.requestID] = context.id
        let elapsed = ContinuousClock.now - started
        // Hummingbird's router names a request that matched no route "NotFound"; ours say
        // "unmatched", as docs/collector.md does (a known path asked with the wrong method included).
        let matched = context.endpointPath.flatMap { $0 == "NotFound" ? nil : $0 }
        metrics.request(
            route: matched ?? "unmatched",
            method: Self.methodLabel(request.method),
            status: Int(response.status.code),
            nanoseconds: elapsed.nanoseconds
        )
        return response
    }

    /// The standard methods by name, anything else as `other`: a label's values stay few
    /// whatever clients send.
    static func methodLabel(_ method: HTTPRequest.Method) -> String {
        switch method {
        case .get, .post, .put, .delete, .patch, .head, .options: method.rawValue
        default: "other"
        }
    }

    private func allowedMethod(_ request: Request) -> String? {
        var path = Substring(request.uri.path)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        if let method = methodsByPath[String(path)] { return method }
        // A pattern's parameter (`{writeKey}`) stands for any one non-empty segment.
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        for (pattern, method) in methodsByPath where pattern.contains("{") {
            let parts = pattern.split(separator: "/", omittingEmptySubsequences: false)
            if parts.count == segments.count,
                zip(parts, segments).allSatisfy({ $0.hasPrefix("{") ? !$1.isEmpty : $0 == $1 })
            {
                return method
            }
        }
        return nil
    }

    /// The JSON reply of `error`, with `Retry-After` on 429 and 503.
    static func reply(_ error: CollectorError, retryAfter: Int) -> Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        if error.status == .tooManyRequests || error.status == .serviceUnavailable {
            headers[.retryAfter] = String(retryAfter)
        }
        return Response(
            status: error.status,
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: error.json))
        )
    }
}

extension HTTPField.Name {
    /// `X-Request-Id`.
    static let requestID = HTTPField.Name("X-Request-Id")!
}
