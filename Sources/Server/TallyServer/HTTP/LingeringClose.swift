import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// A lingering close, at the front of the pipeline (raw bytes): once the response side is shut
/// (`close(mode: .output)`, after the last answer), what the client still sends is read and
/// dropped until its FIN arrives; NIO then closes the channel, both sides being shut. At most
/// `maxBytes` and `timeout`, then the connection is closed outright.
///
/// Why: after answering a request it did not read whole (a head over the limits, a body refused
/// early), Hummingbird stops reading, so the request's unread bytes sit in the socket in front of
/// the client's FIN, which is never seen: the connection is held until a timeout, and enough of
/// them fill `--max-connections`. Closing outright with unread input is no cure either: the kernel
/// answers with a reset, which can destroy the answer before the client reads it.
final class LingeringCloseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private let maxBytes: Int
    private let timeout: TimeAmount
    private var draining = false
    private var drained = 0
    private var deadline: Scheduled<Void>?

    init(maxBytes: Int, timeout: TimeAmount) {
        self.maxBytes = maxBytes
        self.timeout = timeout
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        context.close(mode: mode, promise: promise)
        guard mode == .output, !draining, context.channel.isActive else { return }
        draining = true
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            context.close(promise: nil)
        }
        context.read()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard draining else { return context.fireChannelRead(data) }
        drained += unwrapInboundIn(data).readableBytes
        if drained > maxBytes { context.close(promise: nil) }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        guard draining else { return context.fireChannelReadComplete() }
        // Nobody behind asks for reads any more (the request stream is over): this handler does,
        // until the FIN.
        context.read()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }
}

/// Closes the connection after a response sent before its request was read whole (413 from
/// `Content-Length`, 401 before the body, an error mid-body): the response says
/// `Connection: close`, and once it is flushed the response side is shut, which starts the
/// ``LingeringCloseHandler``. Hummingbird would otherwise read the rest of the body, however
/// large, to keep the connection for the next request.
///
/// Requests and responses are counted, not flagged: with pipelining the next request's head may
/// arrive before the current one is answered.
final class EarlyResponseCloseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Requests whose end has been read.
    private var requestsRead = 0
    /// Final response heads written.
    private var responsesStarted = 0
    private var closesAfterEnd = false
    private var closesAfterFlush = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) { requestsRead += 1 }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var response) where response.status.kind != .informational:
            responsesStarted += 1
            // This response answers request number `responsesStarted`: not read whole yet?
            if requestsRead < responsesStarted {
                closesAfterEnd = true
                response.headerFields[.connection] = "close"
                return context.write(wrapOutboundOut(.head(response)), promise: promise)
            }
        case .end where closesAfterEnd:
            closesAfterEnd = false
            closesAfterFlush = true
        default:
            break
        }
        context.write(data, promise: promise)
    }

    func flush(context: ChannelHandlerContext) {
        context.flush()
        if closesAfterFlush {
            closesAfterFlush = false
            context.close(mode: .output, promise: nil)
        }
    }
}
