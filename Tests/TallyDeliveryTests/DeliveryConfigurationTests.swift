import Foundation
import TallyDelivery
import Testing

/// Settings out of range are refused by `TallyDelivery.init` with `invalid_configuration`, before
/// anything is created: no trap in the pipeline's preconditions, no loop spinning on a zero interval.
@Suite("DeliveryConfiguration validation")
struct DeliveryConfigurationTests {
    static func configuration(_ directory: String) -> DeliveryConfiguration {
        DeliveryConfiguration(
            outboxDirectory: directory,
            endpoint: URL(string: "http://127.0.0.1:9")!,
            writeKey: "key"
        )
    }

    static let cases: [(String, @Sendable (inout DeliveryConfiguration) -> Void)] = [
        ("maxBatchSize 0: must be at least 1", { $0.maxBatchSize = 0 }),
        ("queueCapacity -1: must be at least 1", { $0.queueCapacity = -1 }),
        ("uploadThreshold 0: must be at least 1", { $0.uploadThreshold = 0 }),
        ("caps.maxBytes 1000: must be at least 65536", { $0.caps.maxBytes = 1000 }),
        ("caps.maxEvents 0: must be at least 1", { $0.caps.maxEvents = 0 }),
        ("limits.maxEvents 0: must be at least 1", { $0.limits.maxEvents = 0 }),
        ("limits.maxBytes 100: must be at least 32768", { $0.limits.maxBytes = 100 }),
        ("batchInterval 0.0 seconds: must be above zero", { $0.batchInterval = .zero }),
        ("uploadInterval -1.0 seconds: must be above zero", { $0.uploadInterval = .seconds(-1) }),
        ("caps.maxAge 0.0 seconds: must be above zero", { $0.caps.maxAge = .zero }),
        (
            "sessions.idleTimeout 0.0 seconds: must be above zero",
            { $0.sessions = SessionConfiguration(idleTimeout: .zero) }
        ),
        ("shutdownUploadTimeout -2.0 seconds: must not be negative", { $0.shutdownUploadTimeout = .seconds(-2) }),
        (
            "endpoint collector.example.com: give an http or https URL",
            {
                $0.endpoint = URL(string: "collector.example.com")!
            }
        ),
        (
            "endpoint ftp://collector.example.com: give an http or https URL",
            {
                $0.endpoint = URL(string: "ftp://collector.example.com")!
            }
        ),
        ("outboxDirectory is empty", { $0.outboxDirectory = "" }),
        // Set after RetryPolicy's initializer, past its preconditions.
        ("backoff.maxAttempts 0: must be at least 1", { $0.backoff.maxAttempts = 0 }),
        ("backoff.jitter 2.0: must be within 0...1", { $0.backoff.jitter = 2 }),
        ("backoff.multiplier nan: must be 1 or more", { $0.backoff.multiplier = .nan }),
        ("backoff.initialBackoff -1.0 seconds: must not be negative", { $0.backoff.initialBackoff = .seconds(-1) }),
    ]

    @Test("each setting out of range is named, and nothing is created", arguments: 0..<cases.count)
    func refused(_ index: Int) throws {
        let (message, change) = Self.cases[index]
        let directory = NSTemporaryDirectory() + "tally-config-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = Self.configuration(directory)
        change(&configuration)
        do {
            _ = try TallyDelivery(configuration: configuration)
            Issue.record("accepted: \(message)")
        } catch let error as DeliveryError {
            #expect(error.code == .invalidConfiguration)
            #expect(error.description.contains(message), "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory), "the outbox was created")
    }

    @Test("the defaults and the smallest accepted values are usable")
    func accepted() throws {
        let directory = NSTemporaryDirectory() + "tally-config-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = Self.configuration(directory)
        _ = try TallyDelivery(configuration: configuration)
        configuration.caps.maxBytes = OutboxCaps.minimumMaxBytes
        configuration.limits.maxBytes = DeliveryConfiguration.RequestLimits.minimumBytes
        configuration.maxRetryAfter = .zero
        configuration.sessions = nil
        _ = try TallyDelivery(configuration: configuration)
    }
}
