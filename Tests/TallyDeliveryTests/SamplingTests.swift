import TallyCore
import TallySchema
import Testing

@testable import TallyDelivery

@Suite("Sampling on the device")
struct SamplingTests {
    static let plan = #"""
        {"name": "Product Viewed", "version": "1-0-0", "description": "d", "properties": {"type": "object"},
         "x-tally-sample-rate": 0.1},
        {"name": "Order Completed", "version": "1-0-0", "description": "d", "properties": {"type": "object"},
         "x-tally-sample-rate": 0.5},
        {"name": "Cart Viewed", "version": "1-0-0", "description": "d", "properties": {"type": "object"}}
        """#

    /// The population of the acceptance criterion: 10,000 users (`user-00000` …), 1 to 10 events
    /// each (55,000 in all), one event kind sampled at 10 %.
    static func population(prefix: String = "user-") -> [(user: String, events: Int)] {
        (0..<10_000).map { index in
            let digits = String(index)
            return (prefix + String(repeating: "0", count: 5 - digits.count) + digits, 1 + index % 10)
        }
    }

    /// Runs each user's events through the sampler: (true total, estimated total, users cut in two).
    static func sample(_ population: [(user: String, events: Int)], sampler: Sampler) -> (Int, Double, Int) {
        var total = 0
        var estimate = 0.0
        var split = 0
        for (user, count) in population {
            var kept = 0
            for _ in 0..<count {
                var event = PrivacyFixtures.event("Product Viewed", userID: user)
                if sampler.keep(&event) {
                    kept += 1
                    estimate += 1 / (event.sampleRate ?? 1)
                }
            }
            total += count
            if kept != 0 && kept != count { split += 1 }
        }
        return (total, estimate, split)
    }

    @Test("a 10 % sample of 10,000 users: the estimated total within 5 %, every kept user's events whole")
    func acceptance() throws {
        let sampler = Sampler(registry: try PrivacyFixtures.registry(Self.plan))
        let (total, estimate, split) = Self.sample(Self.population(), sampler: sampler)
        #expect(total == 55_000)
        #expect(split == 0)
        let error = abs(estimate - Double(total)) / Double(total)
        #expect(error < 0.05, "estimated \(estimate) for \(total) events: \(error * 100) %")
    }

    /// The criterion above is a property of sampling itself: with 10,000 users at 10 % the error's
    /// standard deviation is about 3 % here, so some populations land past 5 %. Over many
    /// populations the estimate must be unbiased and its spread what the binomial predicts.
    @Test("over 20 populations the estimate is unbiased and its spread is the binomial one")
    func unbiased() throws {
        let sampler = Sampler(registry: try PrivacyFixtures.registry(Self.plan))
        let errors = (0..<20).map { seed in
            let (total, estimate, _) = Self.sample(Self.population(prefix: "p\(seed)-"), sampler: sampler)
            return (estimate - Double(total)) / Double(total)
        }
        let mean = errors.reduce(0, +) / Double(errors.count)
        let spread = (errors.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(errors.count - 1)).squareRoot()
        #expect(abs(mean) < 0.02, "mean error \(mean)")
        #expect(spread > 0.01 && spread < 0.06, "spread \(spread)")
    }

    @Test("a user kept at a rate is kept at every higher rate; positions spread evenly")
    func monotonicAndUniform() throws {
        let sampler = Sampler(registry: try PrivacyFixtures.registry(Self.plan))
        var keptAtTen = 0
        for index in 0..<2_000 {
            let user = "u\(index)"
            var viewed = PrivacyFixtures.event("Product Viewed", userID: user)
            var ordered = PrivacyFixtures.event("Order Completed", userID: user)
            let atTen = sampler.keep(&viewed)
            let atFifty = sampler.keep(&ordered)
            if atTen { keptAtTen += 1 }
            #expect(!atTen || atFifty, "\(user) kept at 10 % but not at 50 %")
            #expect(atTen == (Sampler.position(of: user) < 0.1))
            if atFifty { #expect(ordered.sampleRate == 0.5) }
        }
        #expect((140...260).contains(keptAtTen))
    }

    @Test("unsampled kinds, identity records and events without ids are kept unmarked; the user id wins")
    func keptAsIs() throws {
        let sampler = Sampler(registry: try PrivacyFixtures.registry(Self.plan))
        var cart = PrivacyFixtures.event("Cart Viewed", userID: "u1")
        #expect(sampler.keep(&cart) && cart.sampleRate == nil)
        var identify = PrivacyFixtures.event("identify", userID: "u1", kind: .identify)
        #expect(sampler.keep(&identify) && identify.sampleRate == nil)
        var nobody = PrivacyFixtures.event("Product Viewed", userID: nil, anonymousID: nil)
        #expect(sampler.keep(&nobody) && nobody.sampleRate == nil)
        // The user id decides when both are set: find an anonymous id kept and a user id dropped.
        let dropped = (0..<100).map { "user-\($0)" }.first { Sampler.position(of: $0) >= 0.1 }!
        let kept = (0..<100).map { "anon-\($0)" }.first { Sampler.position(of: $0) < 0.1 }!
        var both = PrivacyFixtures.event("Product Viewed", userID: dropped, anonymousID: kept)
        #expect(!sampler.keep(&both))
        // The documented position: SHA-256 of the key, first 8 bytes big-endian, 53 bits.
        #expect(Sampler.position(of: "") == Double(UInt64(0xe3b0_c442_98fc_1c14) >> 11) * 0x1p-53)
    }
}
