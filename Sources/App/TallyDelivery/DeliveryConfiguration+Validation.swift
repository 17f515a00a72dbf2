import Foundation
import TallySchema

extension DeliveryConfiguration {
    /// The first setting out of range, described for ``DeliveryError/Code/invalidConfiguration``;
    /// nil when every setting is usable. ``TallyDelivery/init(configuration:logger:)`` throws it
    /// before it touches the outbox: a value from remote config must not trap in the pipeline's
    /// preconditions (a zero batch size) or spin (a zero interval).
    package var problem: String? {
        if outboxDirectory.isEmpty { return "outboxDirectory is empty: give the directory the outbox lives in." }
        let scheme = endpoint.scheme?.lowercased()
        if scheme != "http" && scheme != "https" || (endpoint.host ?? "").isEmpty {
            return "endpoint \(endpoint): give an http or https URL with a host, such as https://collector.example.com."
        }
        let counts: [(String, Int, Int)] = [
            ("maxBatchSize", maxBatchSize, 1), ("queueCapacity", queueCapacity, 1),
            ("uploadThreshold", uploadThreshold, 1), ("caps.maxBytes", caps.maxBytes, OutboxCaps.minimumMaxBytes),
            ("caps.maxEvents", caps.maxEvents, 1), ("limits.maxEvents", limits.maxEvents, 1),
            ("limits.maxBytes", limits.maxBytes, RequestLimits.minimumBytes),
            ("limits.maxUncompressedBytes", limits.maxUncompressedBytes, RequestLimits.minimumBytes),
        ]
        for (setting, value, least) in counts where value < least {
            return "\(setting) \(value): must be at least \(least)."
        }
        var durations: [(String, Duration)] = [
            ("batchInterval", batchInterval), ("uploadInterval", uploadInterval), ("requestTimeout", requestTimeout),
            ("caps.maxAge", caps.maxAge),
        ]
        if let sessions {
            durations += [("sessions.idleTimeout", sessions.idleTimeout), ("sessions.maxLength", sessions.maxLength)]
        }
        for (setting, value) in durations where value <= .zero {
            return "\(setting) \(value): must be above zero."
        }
        for (setting, value) in [("maxRetryAfter", maxRetryAfter), ("shutdownUploadTimeout", shutdownUploadTimeout)]
        where value < .zero {
            return "\(setting) \(value): must not be negative."
        }
        if let problem = backoff.problem { return "backoff." + problem }
        return nil
    }
}

extension DeliveryConfiguration.RequestLimits {
    /// The smallest byte limit accepted: a request must hold one event as large as events may be
    /// (`ValidationLimits.defaultMaxEventBytes`, 32 KiB).
    public static let minimumBytes = ValidationLimits.defaultMaxEventBytes
}
