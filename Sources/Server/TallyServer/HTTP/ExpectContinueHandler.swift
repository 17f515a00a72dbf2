import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers `Expect: 100-continue` with `100 Continue` (Hummingbird does not), so that clients
/// which ask first (curl for large bodies, .NET, some Java clients) send their body at once
/// instead of after their own timeout. A body declared over the request limit gets no 100: the
/// route answers 413 without reading it.
final class ExpectContinueHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let maxRequestBytes: Int

    init(maxRequestBytes: Int) {
        self.maxRequestBytes = maxRequestBytes
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data),
            head.headerFields[.expect]?.lowercased() == "100-continue",
            (head.headerFields[.contentLength].flatMap { Int($0) } ?? 0) <= maxRequestBytes
        {
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
        }
        context.fireChannelRead(data)
    }
}
