import CoreMetrics
import Prometheus
import TallyCore

/// The collector's metrics, in a Prometheus registry of its own (no global bootstrap, so tests
/// and several collectors in one process do not share counts). `/metrics` renders it.
///
/// Routes are labelled by their pattern (`/v1/projects/{writeKey}/settings`), never their path,
/// so no write key reaches a label.
package final class CollectorMetrics: Sendable {
    private let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory

    /// Events waiting for a commit round.
    let queueDepth: CoreMetrics.Gauge
    /// Time to write and flush one round.
    let sinkLatency: CoreMetrics.Timer
    /// Failed round writes (each attempt).
    let sinkFailures: CoreMetrics.Counter
    /// Round writes tried again.
    let retries: CoreMetrics.Counter
    /// Events refused because the queue was full (429).
    let drops: CoreMetrics.Counter
    /// Events and rejects committed.
    let eventsCommitted: CoreMetrics.Counter
    /// Events accepted into the store (in 2xx replies).
    let eventsAccepted: CoreMetrics.Counter
    /// Accepted events more than a day ahead of their receipt, placed at it.
    let eventsFromFuture: CoreMetrics.Counter
    /// Requests whose events were not acknowledged (429/503), by outcome.
    private let rejectedReasons = Locked<[String: CoreMetrics.Counter]>([:])
    private let requestCounters = Locked<[String: CoreMetrics.Counter]>([:])
    private let requestTimers = Locked<[String: CoreMetrics.Timer]>([:])
    /// Requests sent with each rotated key, by the key's id (never the key).
    private let rotatedKeyCounters = Locked<[String: CoreMetrics.Counter]>([:])
    /// Keys accepted now, active and rotated.
    private let activeKeys: CoreMetrics.Gauge
    private let rotatedKeys: CoreMetrics.Gauge
    /// Reloads of the keys file (SIGHUP), applied or failed.
    private let reloadsApplied: CoreMetrics.Counter
    private let reloadsFailed: CoreMetrics.Counter

    package init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
            .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
            .seconds(2), .seconds(5), .seconds(10),
        ]
        self.factory = factory
        queueDepth = CoreMetrics.Gauge(label: "tally_collector_queue_events", factory: factory)
        sinkLatency = CoreMetrics.Timer(label: "tally_collector_sink_commit_seconds", factory: factory)
        sinkFailures = CoreMetrics.Counter(label: "tally_collector_sink_failures_total", factory: factory)
        retries = CoreMetrics.Counter(label: "tally_collector_sink_retries_total", factory: factory)
        drops = CoreMetrics.Counter(label: "tally_collector_dropped_events_total", factory: factory)
        eventsCommitted = CoreMetrics.Counter(label: "tally_collector_committed_total", factory: factory)
        eventsAccepted = CoreMetrics.Counter(label: "tally_collector_events_accepted_total", factory: factory)
        eventsFromFuture = CoreMetrics.Counter(label: "tally_collector_events_from_future_total", factory: factory)
        activeKeys = CoreMetrics.Gauge(
            label: "tally_collector_write_keys",
            dimensions: [("status", "active")],
            factory: factory
        )
        rotatedKeys = CoreMetrics.Gauge(
            label: "tally_collector_write_keys",
            dimensions: [("status", "rotated")],
            factory: factory
        )
        reloadsApplied = CoreMetrics.Counter(
            label: "tally_collector_keys_reloads_total",
            dimensions: [("outcome", "applied")],
            factory: factory
        )
        reloadsFailed = CoreMetrics.Counter(
            label: "tally_collector_keys_reloads_total",
            dimensions: [("outcome", "failed")],
            factory: factory
        )
    }

    /// Records the keys now accepted.
    func keysLoaded(_ keys: WriteKeyTable) {
        let rotated = keys.rotatedCount
        activeKeys.record(keys.count - rotated)
        rotatedKeys.record(rotated)
    }

    /// Counts a reload of the keys file.
    func keysReloaded(applied: Bool) {
        (applied ? reloadsApplied : reloadsFailed).increment()
    }

    /// Counts a request sent with the rotated key `id`: once it stays at its value, no app uses
    /// the key any more and it can be revoked.
    func rotatedKeyUsed(_ id: String) {
        let counter = rotatedKeyCounters.withLock { counters in
            if let counter = counters[id] { return counter }
            let counter = CoreMetrics.Counter(
                label: "tally_collector_rotated_key_requests_total",
                dimensions: [("key_id", id)],
                factory: factory
            )
            counters[id] = counter
            return counter
        }
        counter.increment()
    }

    /// Counts `count` events rejected for `reason` (a reason code, never user data).
    func rejected(_ reason: String, count: Int = 1) {
        let counter = rejectedReasons.withLock { counters in
            if let counter = counters[reason] { return counter }
            let counter = CoreMetrics.Counter(
                label: "tally_collector_events_rejected_total",
                dimensions: [("reason", reason)],
                factory: factory
            )
            counters[reason] = counter
            return counter
        }
        counter.increment(by: count)
    }

    /// Counts a request to the route `pattern` answered with `status`, and its duration.
    func request(route pattern: String, method: String, status: Int, nanoseconds: Int64) {
        let key = "\(pattern) \(method) \(status)"
        let dimensions = [("route", pattern), ("method", method), ("status", String(status))]
        let counter = requestCounters.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = CoreMetrics.Counter(
                label: "tally_collector_requests_total",
                dimensions: dimensions,
                factory: factory
            )
            counters[key] = counter
            return counter
        }
        counter.increment()
        let timerKey = "\(pattern) \(method)"
        let timer = requestTimers.withLock { timers in
            if let timer = timers[timerKey] { return timer }
            let timer = CoreMetrics.Timer(
                label: "tally_collector_request_duration_seconds",
                dimensions: [("route", pattern), ("method", method)],
                factory: factory
            )
            timers[timerKey] = timer
            return timer
        }
        timer.recordNanoseconds(nanoseconds)
    }

    /// The Prometheus text exposition of every metric.
    package func render() -> [UInt8] {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }
}
