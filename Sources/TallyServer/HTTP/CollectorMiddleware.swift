import HTTPTypes
import Hummingbird
import Logging
import TallyCore

/// Around every route (matched or not): turns errors into the collector's JSON replies, stamps
/// `X-Request-Id`, and counts the request by route pattern (never its path, which may hold a
/// write key) and status.
struct CollectorMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: CollectorMetrics
    let retryAfterSeconds: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let started = ContinuousClock.now
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as CollectorError {
            response = Self.reply(error, retryAfter: retryAfterSeconds)
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
        let (seconds, attoseconds) = elapsed.components
        metrics.request(
            route: context.endpointPath ?? "unmatched",
            method: request.method.rawValue,
            status: Int(response.status.code),
            nanoseconds: seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        )
        return response
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
