#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A set of (day, feature, actor id) keys held as bytes, compared byte-exactly as PostgreSQL
/// compares text: the actors of one batch, and the actors a sink knows are already stored.
///
/// Keys are copied into one byte buffer, so a set of thousands costs no per-key allocation.
package struct ActorSet {
    /// A stored key: its day and where its feature and id bytes are in ``bytes``.
    struct Entry {
        var day: Int64
        var feature: Range<Int>
        var id: Range<Int>
        var hash: Int
    }

    private(set) var bytes: [UInt8] = []
    private(set) var entries: [Entry] = []
    private var slots: HashSlots

    /// The number of keys.
    package var count: Int { entries.count }

    /// An empty set with room for `capacity` keys before it grows.
    package init(capacity: Int = 32) {
        slots = HashSlots(capacity: capacity)
        entries.reserveCapacity(capacity)
        bytes.reserveCapacity(capacity * 24)
    }

    static func hash(day: Int64, feature: UnsafeRawBufferPointer, id: UnsafeRawBufferPointer) -> Int {
        ByteHash.finish(ByteHash.combine(ByteHash.combine(ByteHash.start(UInt64(bitPattern: day)), feature), id))
    }

    /// Whether the key is in the set; `hash` is ``hash(day:feature:id:)`` of it.
    func contains(day: Int64, feature: UnsafeRawBufferPointer, id: UnsafeRawBufferPointer, hash: Int) -> Bool {
        bytes.withUnsafeBytes { stored in
            slots.find(hash) { index in
                let entry = entries[index]
                return entry.day == day && Self.equal(stored, entry.id, id)
                    && Self.equal(stored, entry.feature, feature)
            } != nil
        }
    }

    /// Adds the key unless present; returns whether it was added.
    @discardableResult
    mutating func insert(day: Int64, feature: UnsafeRawBufferPointer, id: UnsafeRawBufferPointer, hash: Int) -> Bool {
        guard !contains(day: day, feature: feature, id: id, hash: hash) else { return false }
        let featureStart = bytes.count
        bytes.append(contentsOf: feature)
        let idStart = bytes.count
        bytes.append(contentsOf: id)
        entries.append(Entry(day: day, feature: featureStart..<idStart, id: idStart..<bytes.count, hash: hash))
        slots.insert(hash, index: entries.count - 1)
        return true
    }

    /// Adds every key of `other`.
    package mutating func formUnion(_ other: ActorSet) {
        formUnion(other, entries: Array(other.entries.indices))
    }

    /// Adds the keys of `other` at `indices` (of its ``entries``).
    package mutating func formUnion(_ other: ActorSet, entries indices: [Int]) {
        other.bytes.withUnsafeBytes { source in
            for index in indices {
                let entry = other.entries[index]
                insert(
                    day: entry.day,
                    feature: UnsafeRawBufferPointer(rebasing: source[entry.feature]),
                    id: UnsafeRawBufferPointer(rebasing: source[entry.id]),
                    hash: entry.hash
                )
            }
        }
    }

    /// Empties the set, keeping its storage.
    package mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        entries.removeAll(keepingCapacity: true)
        slots.removeAll()
    }

    private static func equal(_ stored: UnsafeRawBufferPointer, _ range: Range<Int>, _ key: UnsafeRawBufferPointer)
        -> Bool
    {
        range.count == key.count
            && (key.isEmpty || memcmp(stored.baseAddress! + range.lowerBound, key.baseAddress!, key.count) == 0)
    }
}
