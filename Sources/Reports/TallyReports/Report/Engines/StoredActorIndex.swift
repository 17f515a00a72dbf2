import Foundation
import TallyPostgres

/// Actor ids as a store sends them (bytes) to an evaluation's actor indices: each distinct id is
/// made a `String` and resolved once, then found by its bytes, with no allocation per row.
///
/// Rows come in storage order, so each lookup lands on a random slot: an open-addressing table of
/// slots holding the hash, the index and the first 16 bytes of the id, so that most lookups read
/// one cache line (ids of up to 16 bytes are compared there; longer ones also against their bytes
/// in ``bytes``). That line is a miss in a table of many actors: a caller with many rows at hand
/// loads their slots together first (``warm(_:)``: the misses then overlap), and a row of the
/// same actor as the one before (a session's events are stored together) skips the table.
package struct StoredActorIndex {
    private struct Slot {
        /// 0: empty (hashes are made odd).
        var hash: UInt64 = 0
        var head: (UInt64, UInt64) = (0, 0)
        var length: Int32 = 0
        var index: Int32 = 0
        /// Ids longer than 16 bytes: their number in ``long``.
        var entry: Int32 = 0
    }

    private var slots = [Slot](repeating: Slot(), count: 1 << 16)
    private var count = 0
    /// The id looked up last (up to 16 bytes; length -1: none) and its index.
    private var lastHead: (UInt64, UInt64) = (0, 0)
    private var lastLength: Int32 = -1
    private var lastIndex: Int32 = 0
    /// The slots ``warm(_:)`` loaded, summed so that the loads are not left out.
    private var warmed: UInt64 = 0
    /// Ids longer than 16 bytes: where their bytes are.
    private var bytes: [UInt8] = []
    private var long: [Range<Int>] = []

    package init() {}

    /// The hash of `id` as the table uses it.
    package static func hash(_ id: UnsafeRawBufferPointer) -> UInt64 {
        UInt64(bitPattern: Int64(ByteHash.finish(ByteHash.combine(ByteHash.start(), id)))) | 1
    }

    /// Loads the first slot each of `hashes` probes, ahead of their lookups: a loop of loads alone
    /// waits for its cache misses at once, not one by one.
    package mutating func warm(_ hashes: some Sequence<UInt64>) {
        let mask = slots.count - 1
        var sum: UInt64 = 0
        slots.withUnsafeBufferPointer { slots in
            for hash in hashes { sum &+= slots[Int(truncatingIfNeeded: hash) & mask].hash }
        }
        warmed &+= sum
    }

    /// The index of the id in `id`, asking `make` for it the first time.
    package mutating func index(_ id: UnsafeRawBufferPointer, make: (String) -> Int32) -> Int32 {
        index(id, hash: nil, make: make)
    }

    /// The same, with the id's ``hash(_:)`` when the caller has it.
    package mutating func index(_ id: UnsafeRawBufferPointer, hash known: UInt64?, make: (String) -> Int32) -> Int32 {
        let head = Self.head(id)
        let length = Int32(id.count)
        if length == lastLength, head == lastHead { return lastIndex }
        let found = lookUp(id, hash: known ?? Self.hash(id), head: head, length: length, make: make)
        if id.count <= 16 { (lastHead, lastLength, lastIndex) = (head, length, found) }
        return found
    }

    private mutating func lookUp(
        _ id: UnsafeRawBufferPointer,
        hash: UInt64,
        head: (UInt64, UInt64),
        length: Int32,
        make: (String) -> Int32
    ) -> Int32 {
        let mask = slots.count - 1
        var position = Int(truncatingIfNeeded: hash) & mask
        while true {
            let slot = slots[position]
            if slot.hash == 0 { break }
            if slot.hash == hash, slot.length == length, slot.head == head,
                id.count <= 16 || matchesLong(slot.entry, id)
            {
                return slot.index
            }
            position = (position + 1) & mask
        }
        let index = make(String(decoding: id, as: UTF8.self))
        var entry: Int32 = 0
        if id.count > 16 {
            entry = Int32(long.count)
            let start = bytes.count
            bytes.append(contentsOf: id)
            long.append(start..<bytes.count)
        }
        slots[position] = Slot(hash: hash, head: head, length: length, index: index, entry: entry)
        count += 1
        if count * 2 > slots.count { grow() }
        return index
    }

    /// The first 16 bytes, zero-padded.
    private static func head(_ id: UnsafeRawBufferPointer) -> (UInt64, UInt64) {
        var words: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &words) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(rebasing: id.prefix(16)))
        }
        return words
    }

    private func matchesLong(_ entry: Int32, _ id: UnsafeRawBufferPointer) -> Bool {
        let range = long[Int(entry)]
        return bytes.withUnsafeBytes { stored in
            memcmp(stored.baseAddress! + range.lowerBound, id.baseAddress!, id.count) == 0
        }
    }

    private mutating func grow() {
        let old = slots
        slots = [Slot](repeating: Slot(), count: old.count * 2)
        let mask = slots.count - 1
        for slot in old where slot.hash != 0 {
            var position = Int(truncatingIfNeeded: slot.hash) & mask
            while slots[position].hash != 0 { position = (position + 1) & mask }
            slots[position] = slot
        }
    }
}
