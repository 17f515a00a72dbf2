import NIOCore
import NIOHTTPTypes

/// The read deadline of one connection's current request: it starts with the request's first
/// byte and ends with its last part. A head or a body trickled in a byte at a time keeps the idle
/// timer alive; this one it does not: past the deadline the connection is closed.
///
/// Two handlers share it: ``FirstByteHandler`` at the front of the pipeline (raw bytes, before the
/// HTTP decoder) starts it, ``ReadTimeoutHandler`` after the decoder ends it. Both run on the
/// channel's event loop, so the state needs no lock.
final class RequestReadDeadline {
    private let timeout: TimeAmount
    private var scheduled: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    /// A byte arrived: the deadline starts unless a request is already being read.
    func requestBegan(_ context: ChannelHandlerContext) {
        guard scheduled == nil else { return }
        scheduled = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            context.close(promise: nil)
        }
    }

    /// The request arrived whole.
    func requestEnded() {
        scheduled?.cancel()
        scheduled = nil
    }
}

/// Starts the read deadline when a request's first byte arrives (raw bytes, before decoding).
final class FirstByteHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let deadline: RequestReadDeadline

    init(deadline: RequestReadDeadline) {
        self.deadline = deadline
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        deadline.requestBegan(context)
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline.requestEnded()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline.requestEnded()
    }
}

/// Ends the read deadline when a request's last part has been decoded.
final class ReadTimeoutHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let deadline: RequestReadDeadline

    init(deadline: RequestReadDeadline) {
        self.deadline = deadline
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) { deadline.requestEnded() }
        context.fireChannelRead(data)
    }
}
