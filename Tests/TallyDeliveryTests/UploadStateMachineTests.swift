import TallyPipeline
import Testing

@testable import TallyDelivery

/// The uploader's decisions for every class of answer, without a network.
@Suite("Upload state machine")
struct UploadStateMachineTests {
    /// No jitter, so waits are exact: 1 s doubling to 8 s.
    static func machine(maxEvents: Int = 100) -> UploadStateMachine {
        UploadStateMachine(
            maxEvents: maxEvents,
            backoff: RetryPolicy(
                maxAttempts: .max,
                initialBackoff: .seconds(1),
                multiplier: 2,
                maxBackoff: .seconds(8),
                jitter: 0
            ),
            maxRetryAfter: .seconds(60)
        )
    }

    @Test("2xx deletes the batches and resets the backoff")
    func success() {
        var machine = Self.machine()
        var random = SystemRandomNumberGenerator()
        #expect(machine.received(.transportFailure, events: 10, using: &random) == .retry(after: .seconds(1)))
        for status in [200, 202, 204] {
            #expect(machine.received(.status(status, retryAfter: nil), events: 10, using: &random) == .delete)
            #expect(machine.failures == 0)
        }
    }

    @Test("429, 503, 408, 5xx and network errors back off exponentially up to the maximum")
    func transient() {
        var machine = Self.machine()
        var random = SystemRandomNumberGenerator()
        let answers: [UploadStateMachine.Response] = [
            .status(429, retryAfter: nil), .status(503, retryAfter: nil), .status(408, retryAfter: nil),
            .status(500, retryAfter: nil), .transportFailure, .status(502, retryAfter: nil),
        ]
        let waits = answers.map { machine.received($0, events: 5, using: &random) }
        #expect(waits == [1, 2, 4, 8, 8, 8].map { .retry(after: .seconds($0)) })
    }

    @Test("a collector down for hours: thousands of failures in a row keep waiting the maximum, no trap")
    func longOutage() {
        // The default policy (0.5 s doubling to 30 s): past ~60 doublings the wait no longer fit a
        // Duration, and forming it trapped: an app offline for half an hour crashed.
        var machine = UploadStateMachine(
            maxEvents: 100,
            backoff: DeliveryConfiguration(outboxDirectory: "/tmp", endpoint: .init(string: "http://h")!, writeKey: "k")
                .backoff,
            maxRetryAfter: .seconds(60)
        )
        var random = SystemRandomNumberGenerator()
        var last: UploadStateMachine.Action?
        for _ in 0..<5_000 { last = machine.received(.transportFailure, events: 5, using: &random) }
        guard case .retry(let wait) = last else {
            Issue.record("not a retry: \(String(describing: last))")
            return
        }
        #expect(wait >= .seconds(15) && wait <= .seconds(30))
        #expect(machine.failures == 5_000)
    }

    @Test("Retry-After is honoured when longer than the backoff, and capped")
    func retryAfter() {
        var machine = Self.machine()
        var random = SystemRandomNumberGenerator()
        #expect(
            machine.received(.status(429, retryAfter: .seconds(5)), events: 1, using: &random)
                == .retry(after: .seconds(5))
        )
        #expect(
            machine.received(.status(503, retryAfter: .zero), events: 1, using: &random) == .retry(after: .seconds(2))
        )
        #expect(
            machine.received(.status(429, retryAfter: .seconds(86_400)), events: 1, using: &random)
                == .retry(after: .seconds(60))
        )
    }

    @Test("jitter keeps each wait within its fraction below the backoff")
    func jitter() {
        var machine = UploadStateMachine(
            maxEvents: 10,
            backoff: RetryPolicy(maxAttempts: .max, initialBackoff: .seconds(1), maxBackoff: .seconds(1), jitter: 0.5),
            maxRetryAfter: .seconds(60)
        )
        var random = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            guard case .retry(let wait) = machine.received(.transportFailure, events: 1, using: &random) else {
                Issue.record("not a retry")
                return
            }
            #expect(wait > .milliseconds(499) && wait <= .seconds(1))
        }
    }

    @Test("413 halves the next request until one event, which is dead-lettered; the lowered limit stays")
    func tooLarge() {
        var machine = Self.machine(maxEvents: 100)
        var random = SystemRandomNumberGenerator()
        #expect(machine.received(.status(413, retryAfter: nil), events: 100, using: &random) == .split)
        #expect(machine.eventLimit == 50)
        #expect(machine.received(.status(413, retryAfter: nil), events: 3, using: &random) == .split)
        #expect(machine.eventLimit == 1)
        #expect(machine.received(.status(413, retryAfter: nil), events: 1, using: &random) == .deadLetter)
        #expect(machine.received(.status(200, retryAfter: nil), events: 1, using: &random) == .delete)
        #expect(machine.eventLimit == 1, "stays at the size that passed")
        var local = Self.machine(maxEvents: 100)
        let halved = local.tooLarge(events: 2)
        let single = local.tooLarge(events: 1)
        #expect(halved && !single && local.eventLimit == 1)
    }

    @Test("any other 4xx (400, 401, 403, 404, 422) dead-letters: a resend cannot help")
    func permanent() {
        var machine = Self.machine()
        var random = SystemRandomNumberGenerator()
        for status in [400, 401, 403, 404, 409, 415, 422] {
            #expect(machine.received(.status(status, retryAfter: nil), events: 4, using: &random) == .deadLetter)
        }
        #expect(machine.failures == 0)
    }
}
