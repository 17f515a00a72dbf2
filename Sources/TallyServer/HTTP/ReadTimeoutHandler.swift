import NIOCore
import NIOHTTPTypes

/// Closes a connection whose request has not fully arrived within the read timeout of its head:
/// a body sent a byte at a time keeps the idle timer alive, this one it does not.
final class ReadTimeoutHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let timeout: TimeAmount
    private var scheduled: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            scheduled?.cancel()
            scheduled = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
                context.close(promise: nil)
            }
        case .end:
            scheduled?.cancel()
            scheduled = nil
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        scheduled?.cancel()
        scheduled = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        scheduled?.cancel()
        scheduled = nil
    }
}
