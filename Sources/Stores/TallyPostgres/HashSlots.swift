/// An open-addressing table from a hash to an index into the caller's own array of keys: the
/// caller hashes and compares its keys (here, byte ranges of a COPY buffer) however it likes.
/// Grows at half full, so probes stay short.
package struct HashSlots {
    /// Indices into the caller's array; -1 marks an empty slot.
    private var slots: [Int]
    /// The hash of each occupied slot, compared before the caller's (costlier) key comparison.
    private var hashes: [Int]
    private var count = 0

    /// A table that holds `capacity` entries before it first grows.
    package init(capacity: Int = 32) {
        var size = 64
        while size < capacity * 2 { size *= 2 }
        slots = [Int](repeating: -1, count: size)
        hashes = [Int](repeating: 0, count: size)
    }

    /// The index of the entry with this hash for which `matches` holds.
    package func find(_ hash: Int, where matches: (Int) -> Bool) -> Int? {
        let mask = slots.count - 1
        var slot = hash & mask
        while slots[slot] >= 0 {
            if hashes[slot] == hash, matches(slots[slot]) { return slots[slot] }
            slot = (slot + 1) & mask
        }
        return nil
    }

    /// Records `index` under `hash` (the caller checked with ``find(_:where:)`` that it is new).
    package mutating func insert(_ hash: Int, index: Int) {
        if (count + 1) * 2 > slots.count { grow() }
        let mask = slots.count - 1
        var slot = hash & mask
        while slots[slot] >= 0 { slot = (slot + 1) & mask }
        slots[slot] = index
        hashes[slot] = hash
        count += 1
    }

    /// Empties the table, keeping its size.
    package mutating func removeAll() {
        for index in slots.indices { slots[index] = -1 }
        count = 0
    }

    private mutating func grow() {
        let (oldSlots, oldHashes) = (slots, hashes)
        slots = [Int](repeating: -1, count: oldSlots.count * 2)
        hashes = [Int](repeating: 0, count: oldSlots.count * 2)
        count = 0
        for (slot, index) in oldSlots.enumerated() where index >= 0 { insert(oldHashes[slot], index: index) }
    }
}
