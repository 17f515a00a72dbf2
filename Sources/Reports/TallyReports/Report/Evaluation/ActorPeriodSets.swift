/// Sets of period indices by actor index, as flat bit sets: a word per 64 periods and actor, where
/// a dictionary of sets cost a hash lookup per event.
struct ActorPeriodSets {
    private let words: Int
    private var bits: [UInt64] = []

    init(periods: Int) {
        words = max(1, (periods + 63) / 64)
    }

    mutating func insert(_ period: Int, for actor: Int32) {
        let base = Int(actor) * words
        if bits.count < base + words { bits.append(contentsOf: repeatElement(0, count: base + words - bits.count)) }
        bits[base + period / 64] |= 1 << UInt64(period % 64)
    }

    func contains(_ period: Int, for actor: Int32) -> Bool {
        let slot = Int(actor) * words + period / 64
        return slot < bits.count && bits[slot] & (1 << UInt64(period % 64)) != 0
    }

    /// Each (actor, period) held, by actor.
    func forEach(_ body: (Int32, Int) -> Void) {
        for (slot, word) in bits.enumerated() where word != 0 {
            for bit in 0..<64 where word & (1 << UInt64(bit)) != 0 {
                body(Int32(slot / words), slot % words * 64 + bit)
            }
        }
    }
}
