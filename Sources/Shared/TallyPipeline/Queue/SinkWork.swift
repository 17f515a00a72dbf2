import TallyCore

/// What the batcher hands a sink worker.
enum SinkWork: Sendable {
    case batch([EventEnvelope])
    case flush(FlushTicket)
}
