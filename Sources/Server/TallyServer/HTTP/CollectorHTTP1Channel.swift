import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's HTTP/1 child channel with tally's read deadline and closing around it:
/// ``LingeringCloseHandler`` and ``FirstByteHandler`` go in front of the HTTP decoder (which
/// `HTTP1Channel` adds), ``EarlyResponseCloseHandler`` and ``ReadTimeoutHandler`` after it, the
/// two deadline handlers sharing one ``RequestReadDeadline`` per connection.
struct CollectorHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let responder: HTTPChannelHandler.Responder
    let configuration: HTTP1Channel.Configuration
    let readTimeout: TimeAmount
    let maxRequestBytes: Int

    /// How long a connection is drained after its last answer before it is closed outright.
    static let lingerTimeout = TimeAmount.seconds(5)

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let readTimeout = readTimeout
        let maxRequestBytes = maxRequestBytes
        var configuration = configuration
        return channel.eventLoop.makeCompletedFuture {
            let deadline = RequestReadDeadline(timeout: readTimeout)
            // First: the bytes it drops after the answer must not restart the read deadline. A
            // client still sending after a refusal sends at most a body of the limit.
            try channel.pipeline.syncOperations.addHandlers(
                LingeringCloseHandler(maxBytes: maxRequestBytes, timeout: min(readTimeout, Self.lingerTimeout)),
                FirstByteHandler(deadline: deadline)
            )
            // The handlers after the decoder are made per connection, with this connection's deadline.
            let shared = NIOLoopBound(deadline, eventLoop: channel.eventLoop)
            configuration.additionalChannelHandlers = {
                [
                    EarlyResponseCloseHandler(),
                    ReadTimeoutHandler(deadline: shared.value),
                    ExpectContinueHandler(maxRequestBytes: maxRequestBytes),
                ]
            }
            return configuration
        }.flatMap { configuration in
            HTTP1Channel(responder: responder, configuration: configuration).setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await HTTP1Channel(responder: responder, configuration: configuration).handle(value: value, logger: logger)
    }
}
