import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's HTTP/1 child channel with tally's read deadline around it: ``FirstByteHandler``
/// goes in front of the HTTP decoder (which `HTTP1Channel` adds), ``ReadTimeoutHandler`` after it,
/// sharing one ``RequestReadDeadline`` per connection.
struct CollectorHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let responder: HTTPChannelHandler.Responder
    let configuration: HTTP1Channel.Configuration
    let readTimeout: TimeAmount
    let maxRequestBytes: Int

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let readTimeout = readTimeout
        let maxRequestBytes = maxRequestBytes
        var configuration = configuration
        return channel.eventLoop.makeCompletedFuture {
            let deadline = RequestReadDeadline(timeout: readTimeout)
            try channel.pipeline.syncOperations.addHandler(FirstByteHandler(deadline: deadline))
            // The handlers after the decoder are made per connection, with this connection's deadline.
            let shared = NIOLoopBound(deadline, eventLoop: channel.eventLoop)
            configuration.additionalChannelHandlers = {
                [
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
