import Foundation
package import Logging
import ServiceLifecycle
import TallyCompression
package import TallyCore
import TallyPipeline

/// Moves the outbox to the collector: oldest batches first, gzip, requests within the collector's
/// limits, one request in flight per outbox directory (`upload.lock`, across processes; a flag
/// within this one), decisions by ``UploadStateMachine``.
///
/// Uploads on an interval, when the waiting events reach a count (``nudge()``), and on
/// ``drain(until:)`` (a flush, a suspend, the end of a graceful shutdown).
package final class Uploader: Sendable {
    /// What one upload cycle did.
    package enum Cycle: Sendable, Hashable {
        /// Nothing waits in the outbox.
        case empty
        /// A request was answered (or batches were found corrupt): go on.
        case progressed
        /// Backing off: no request before this instant.
        case waiting(until: ContinuousClock.Instant)
        /// Another uploader (this process or another) has a request in flight.
        case busy
        /// Consent is not granted (pending or denied): nothing is sent until it is.
        case held
    }

    /// What the uploader sent, for statistics and the bench.
    package struct Counters: Sendable, Hashable {
        package var requests: UInt64 = 0
        package var failures: UInt64 = 0
        package var eventsSent: UInt64 = 0
        /// Events of acknowledged requests that the collector refused one by one.
        package var rejectedByCollector: UInt64 = 0
        /// Bodies as sent (gzip).
        package var bytesSent: UInt64 = 0
        /// The same bodies before compression.
        package var uncompressedBytes: UInt64 = 0
    }

    private let store: OutboxStore
    private let configuration: DeliveryConfiguration
    private let transport = HTTPTransport()
    private let logger: Logger
    private let machine: Locked<UploadStateMachine>
    private let notBefore = Locked<ContinuousClock.Instant?>(nil)
    /// Events of a batch already acknowledged while 413s made requests smaller than one batch.
    private let acknowledged = Locked<[String: Int]>([:])
    private let cycleRunning = Locked(false)
    private let stopping = Locked(false)
    private let wakeup = Wakeup()
    package let counters = Locked(Counters())
    /// The outbox directory's consent, checked before every request; nil: always granted.
    private let consent: ConsentStore?

    package init(store: OutboxStore, configuration: DeliveryConfiguration, logger: Logger, consent: ConsentStore? = nil)
    {
        self.store = store
        self.configuration = configuration
        self.logger = logger
        self.consent = consent
        machine = Locked(
            UploadStateMachine(
                maxEvents: configuration.limits.maxEvents,
                backoff: configuration.backoff,
                maxRetryAfter: configuration.maxRetryAfter
            )
        )
    }

    /// Uploads on the interval and on nudges until graceful shutdown (or cancellation).
    package func run() async {
        await withGracefulShutdownHandler {
            while !stopping.withLock({ $0 }) && !Task.isCancelled {
                _ = await drain(until: .now + .seconds(365 * 24 * 3600))
                guard !stopping.withLock({ $0 }) else { break }
                await wakeup.wait(timeout: configuration.uploadInterval)
            }
        } onGracefulShutdown: {
            self.stopping.withLock { $0 = true }
            self.wakeup.signal()
        }
    }

    /// Asks for an upload now (the count trigger).
    package func nudge() { wakeup.signal() }

    /// Uploads until the outbox is empty (true) or `deadline` passes, a backoff would outlast it,
    /// the task is cancelled or, in ``run()``, shutdown begins (false).
    package func drain(until deadline: ContinuousClock.Instant) async -> Bool {
        let inRunLoop = deadline > .now + .seconds(364 * 24 * 3600)
        while !Task.isCancelled && ContinuousClock.now < deadline {
            if inRunLoop && stopping.withLock({ $0 }) { return false }
            switch await cycle(deadline: deadline) {
            case .empty: return true
            case .progressed: continue
            case .busy: try? await Task.sleep(for: .milliseconds(50))
            case .held: return false
            case .waiting(let until):
                if until > deadline { return false }
                if inRunLoop {
                    await wakeup.wait(timeout: ContinuousClock.now.duration(to: until))
                } else {
                    try? await Task.sleep(until: until)
                }
            }
        }
        return false
    }

    /// One request (or none): claim the oldest batches, send them, record the outcome.
    package func cycle(deadline: ContinuousClock.Instant = .now + .seconds(3600)) async -> Cycle {
        // Re-read: another process sharing the directory may have changed it.
        if let consent, !consent.refresh().allowsUpload { return .held }
        if let until = notBefore.withLock({ $0 }), until > .now { return .waiting(until: until) }
        guard
            cycleRunning.withLock({ running in
                running
                    ? false
                    : {
                        running = true; return true
                    }()
            })
        else {
            return .busy
        }
        defer { cycleRunning.withLock { $0 = false } }
        let lock = store.uploadLock
        guard lock.tryLock() else { return .busy }
        defer { lock.unlock() }
        let limit = machine.withLock { $0.eventLimit }
        let claims = await store.run { $0.claim(maxEvents: limit) }
        if claims.isEmpty { return .empty }
        let contents = await store.run { outbox in claims.map { outbox.read($0) } }
        var outcomes: [(name: String, reason: OutboxLedger.LeaveReason?)] = []
        var readable: [(claim: Outbox.Claim, events: [EventEnvelope])] = []
        for (claim, events) in zip(claims, contents) {
            if let events {
                readable.append((claim, events))
            } else {
                logger.error("outbox: corrupt batch file moved aside", metadata: ["tally.file": "\(claim.name)"])
                outcomes.append((claim.name, .corrupt))
            }
        }
        // A batch larger than a request may now carry (413s lowered the limit) is split on disk
        // first, so that each part is deleted once delivered.
        if let first = readable.first(where: { $0.claim.batch?.isDiagnostics == false }), first.events.count > limit,
            acknowledged.withLock({ $0[first.claim.name] }) == nil,
            let parts = await store.run({ $0.split(first.claim, events: first.events, limit: limit) })
        {
            readable = readable.filter { $0.claim.batch?.isDiagnostics == true } + parts
        }
        if !readable.isEmpty {
            outcomes += await send(readable, deadline: deadline)
        }
        let settled = outcomes
        _ = await store.run { $0.finish(settled) }
        if let until = notBefore.withLock({ $0 }), until > .now { return .waiting(until: until) }
        return .progressed
    }

    /// Sends the claimed batches (as many events as the limit allows) and returns what became of each.
    private func send(
        _ batches: [(claim: Outbox.Claim, events: [EventEnvelope])],
        deadline: ContinuousClock.Instant
    ) async -> [(name: String, reason: OutboxLedger.LeaveReason?)] {
        let done = acknowledged.withLock { $0 }
        while true {
            let limit = machine.withLock { $0.eventLimit }
            let request = UploadRequest(batches, acknowledged: done, limit: limit)
            let sentAt = Timestamp.now().truncatedToMicroseconds
            let plain = WireEncoder.body(request.events, format: configuration.wireFormat, sentAt: sentAt)
            let body = Deflater.compress(plain, format: .gzip)
            let tooLarge =
                body.count > configuration.limits.maxBytes
                || plain.count > configuration.limits.maxUncompressedBytes
            if tooLarge && machine.withLock({ $0.tooLarge(events: request.events.count) }) { continue }
            let remaining = ContinuousClock.now.duration(to: deadline)
            let reply = await transport.post(
                configuration.endpoint.appendingPathComponent(WireEncoder.path(configuration.wireFormat)),
                body: body,
                headers: [
                    ("Content-Type", WireEncoder.contentType(configuration.wireFormat)),
                    ("Content-Encoding", "gzip"),
                    (
                        "Authorization",
                        WireEncoder.authorization(configuration.wireFormat, writeKey: configuration.writeKey)
                    ),
                    ("User-Agent", "tally-delivery/1"),
                ],
                timeout: min(configuration.requestTimeout, max(remaining, .seconds(1)))
            )
            let action = machine.withLock { machine in
                // Made here, not as a `var` of this async function: an inout access to that empty
                // struct in the async frame had no valid address under ThreadSanitizer, whose
                // access check then crashed (SEGV in `received`, retry path only).
                var random = SystemRandomNumberGenerator()
                return machine.received(reply.response, events: request.events.count, using: &random)
            }
            counters.withLock {
                $0.requests += 1
                if action != .delete { $0.failures += 1 }
            }
            switch action {
            case .delete:
                if reply.rejected.count > 0 {
                    logger.warning(
                        "the collector refused events of an acknowledged request (it keeps them; `tally status` lists them)",
                        metadata: [
                            "tally.rejected": "\(reply.rejected.count)",
                            "tally.reason": "\(reply.rejected.firstReason ?? "")",
                            "tally.message": "\(reply.rejected.firstMessage ?? "")",
                            "tally.path": "\(reply.rejected.firstPath ?? "")",
                        ]
                    )
                }
                counters.withLock {
                    $0.rejectedByCollector += UInt64(reply.rejected.count)
                    $0.eventsSent += UInt64(request.events.count)
                    $0.bytesSent += UInt64(body.count)
                    $0.uncompressedBytes += UInt64(plain.count)
                }
                acknowledged.withLock { acknowledged in
                    for (name, count) in request.partial { acknowledged[name] = count }
                    for name in request.complete { acknowledged[name] = nil }
                }
                return request.complete.map { ($0, .uploaded) }
            case .retry(let wait):
                notBefore.withLock { $0 = .now + wait }
                logger.notice(
                    "upload failed, retrying",
                    metadata: ["tally.response": "\(reply.response)", "tally.wait": "\(wait)"]
                )
                return []
            case .split:
                logger.notice("collector answered 413: halving the request", metadata: ["tally.events": "\(limit)"])
                // The next cycle sends fewer events, splitting a batch larger than that on disk first.
                return []
            case .deadLetter:
                if case .status(let status, _) = reply.response, status == 401 || status == 403 {
                    logger.error(
                        "the collector refused the write key (HTTP \(status)): check the key the app is configured with; the batches are dead-lettered",
                        metadata: ["tally.events": "\(request.events.count)"]
                    )
                } else {
                    logger.error(
                        "collector refused a request for good: its batches are dead-lettered",
                        metadata: ["tally.response": "\(reply.response)", "tally.events": "\(request.events.count)"]
                    )
                }
                acknowledged.withLock { acknowledged in
                    for name in request.complete + request.partial.map(\.name) { acknowledged[name] = nil }
                }
                return (request.complete + request.partial.map(\.name)).map { ($0, .deadLettered) }
            }
        }
    }
}
