/// A fast hash of short byte strings for the rollup tables (names, features, actor ids: a few
/// dozen bytes, hashed once or twice per event): eight bytes per multiply, where `Hasher` buffers
/// byte by byte and cost half of the rollup pass in profiles.
///
/// Seeded at random per process, so inputs cannot be prepared to collide; a collision only costs a
/// comparison, since every table compares the bytes themselves.
package enum ByteHash {
    private static let seed = UInt64.random(in: .min ... .max)

    /// Starts a hash.
    package static func start(_ value: UInt64 = 0) -> UInt64 {
        mix(seed, value)
    }

    /// Folds `bytes` (and their count, so that concatenations differ) into `hash`.
    package static func combine(_ hash: UInt64, _ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash = mix(hash, UInt64(bytes.count))
        var offset = 0
        while offset + 8 <= bytes.count {
            hash = mix(hash, bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        if offset < bytes.count {
            var tail: UInt64 = 0
            for index in offset..<bytes.count { tail = tail << 8 | UInt64(bytes[index]) }
            hash = mix(hash, tail)
        }
        return hash
    }

    /// The final hash, its bits spread (the tables index by the low bits).
    package static func finish(_ hash: UInt64) -> Int {
        var hash = hash
        hash ^= hash >> 33
        hash &*= 0xFF51_AFD7_ED55_8CCD
        hash ^= hash >> 33
        hash &*= 0xC4CE_B9FE_1A85_EC53
        hash ^= hash >> 33
        return Int(bitPattern: UInt(hash))
    }

    @inline(__always)
    private static func mix(_ hash: UInt64, _ word: UInt64) -> UInt64 {
        let product = (hash ^ word).multipliedFullWidth(by: 0x9E37_79B9_7F4A_7C15)
        return product.high ^ product.low
    }
}
