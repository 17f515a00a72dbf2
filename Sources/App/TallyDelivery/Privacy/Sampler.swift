package import TallyCore
package import TallySchema

/// Sampling on the device (`"x-tally-sample-rate": r` on an event of the tracking plan): the
/// decision is deterministic per user, so a kept user's events are all kept (funnels stay whole)
/// and a user kept at 10 % is kept at every rate of 10 % or more.
///
/// The user's *position* is the first 8 bytes of the SHA-256 of the sampling key (the user id when
/// set, else the anonymous id; UTF-8), read big-endian, as a fraction of 2⁶⁴ (53 bits kept); the
/// event is kept when the position is below the rate, and it then carries the rate
/// (`sample_rate`), so that stores count it as `1 / rate` events in estimated totals. Events
/// without either id are kept and not marked (nothing to decide on); identity records are never
/// sampled.
package struct Sampler: Sendable {
    private let registry: SchemaRegistry
    /// The last key's position: a batch is mostly one user's events.
    private let last = Locked<(key: String, position: Double)?>(nil)
    /// Whether any event of the plan is sampled: most plans have none.
    package let isActive: Bool

    package init(registry: SchemaRegistry) {
        self.registry = registry
        isActive = registry.plans.values.contains { $0.events.contains { $0.sampleRate != nil } }
    }

    /// Whether `event` is kept; a kept sampled event gets its `sample_rate`.
    package func keep(_ event: inout EventEnvelope) -> Bool {
        guard isActive, event.kind == .track else { return true }
        let version = event.schemaVersion.flatMap(SchemaVer.init)
        let schema = registry.event(event.name, version: version) ?? registry.event(event.name)
        guard let rate = schema?.sampleRate else { return true }
        guard let key = event.userID ?? event.anonymousID else { return true }
        guard position(of: key) < rate else { return false }
        event.sampleRate = rate
        return true
    }

    private func position(of key: String) -> Double {
        if let cached = last.withLock({ $0 }), cached.key == key { return cached.position }
        let position = Self.position(of: key)
        last.withLock { $0 = (key, position) }
        return position
    }

    /// The user's place in [0, 1): the sampling decision is `position < rate`.
    package static func position(of key: String) -> Double {
        let digest = SHA256.digest(Array(key.utf8))
        var word: UInt64 = 0
        for byte in digest.prefix(8) { word = word << 8 | UInt64(byte) }
        return Double(word >> 11) * 0x1p-53
    }
}
