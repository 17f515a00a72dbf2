/// SHA-1 (FIPS 180-4), for RFC 9562 name-based UUIDs (version 5) only.
///
/// Hand-written because `TallyCore` ships inside apps and depends on nothing; SHA-1 here derives
/// identifiers that must match every other UUIDv5 implementation, not secrets (it is not used
/// for anything that needs collision resistance against an attacker). Works in stack buffers:
/// it runs once per foreign message id on the ingest path.
enum SHA1 {
    /// The digest of `message` as five big-endian words.
    static func digest(_ message: UnsafeBufferPointer<UInt8>) -> (UInt32, UInt32, UInt32, UInt32, UInt32) {
        var state: (UInt32, UInt32, UInt32, UInt32, UInt32) = (
            0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0
        )
        return withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 80) { words in
            let whole = message.count / 64 * 64
            for block in stride(from: 0, to: whole, by: 64) {
                compress(UnsafeBufferPointer(rebasing: message[block..<block + 64]), words: words, state: &state)
            }
            // The tail, the 0x80 marker and the bit length: one block, or two when the tail is long.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { tail in
                tail.initialize(repeating: 0)
                let remainder = message.count - whole
                for index in 0..<remainder { tail[index] = message[whole + index] }
                tail[remainder] = 0x80
                let length = remainder + 9 <= 64 ? 64 : 128
                let bitLength = UInt64(message.count) &* 8
                for index in 0..<8 {
                    tail[length - 1 - index] = UInt8(truncatingIfNeeded: bitLength >> UInt64(index * 8))
                }
                for block in stride(from: 0, to: length, by: 64) {
                    compress(UnsafeBufferPointer(rebasing: tail[block..<block + 64]), words: words, state: &state)
                }
            }
            return state
        }
    }

    private static func compress(
        _ block: UnsafeBufferPointer<UInt8>,
        words: UnsafeMutableBufferPointer<UInt32>,
        state: inout (UInt32, UInt32, UInt32, UInt32, UInt32)
    ) {
        for index in 0..<16 {
            let offset = index * 4
            words[index] =
                UInt32(block[offset]) << 24 | UInt32(block[offset + 1]) << 16 | UInt32(block[offset + 2]) << 8
                | UInt32(block[offset + 3])
        }
        for index in 16..<80 {
            words[index] = rotate(words[index - 3] ^ words[index - 8] ^ words[index - 14] ^ words[index - 16], 1)
        }
        var (a, b, c, d, e) = state
        for index in 0..<80 {
            let (f, k): (UInt32, UInt32)
            switch index {
            case 0..<20: (f, k) = ((b & c) | (~b & d), 0x5A82_7999)
            case 20..<40: (f, k) = (b ^ c ^ d, 0x6ED9_EBA1)
            case 40..<60: (f, k) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
            default: (f, k) = (b ^ c ^ d, 0xCA62_C1D6)
            }
            let temporary = rotate(a, 5) &+ f &+ e &+ k &+ words[index]
            (e, d, c, b, a) = (d, c, rotate(b, 30), a, temporary)
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e)
    }

    @inline(__always)
    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value << count) | (value >> (32 - count))
    }
}
