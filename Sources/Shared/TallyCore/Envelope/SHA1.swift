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
                if remainder > 0 { tail.baseAddress!.update(from: message.baseAddress! + whole, count: remainder) }
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
        let raw = UnsafeRawPointer(block.baseAddress!)
        for index in 0..<16 {
            words[index] = UInt32(bigEndian: raw.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
        }
        for index in 16..<80 {
            words[index] = rotate(words[index - 3] ^ words[index - 8] ^ words[index - 14] ^ words[index - 16], 1)
        }
        // One loop per round function, not a switch in one loop of 80: ~2,800 → ~1,500
        // instructions a block (one block per Segment message id).
        var (a, b, c, d, e) = state
        for index in 0..<20 {
            let temporary = rotate(a, 5) &+ ((b & c) | (~b & d)) &+ e &+ 0x5A82_7999 &+ words[index]
            (e, d, c, b, a) = (d, c, rotate(b, 30), a, temporary)
        }
        for index in 20..<40 {
            let temporary = rotate(a, 5) &+ (b ^ c ^ d) &+ e &+ 0x6ED9_EBA1 &+ words[index]
            (e, d, c, b, a) = (d, c, rotate(b, 30), a, temporary)
        }
        for index in 40..<60 {
            let temporary = rotate(a, 5) &+ ((b & c) | (b & d) | (c & d)) &+ e &+ 0x8F1B_BCDC &+ words[index]
            (e, d, c, b, a) = (d, c, rotate(b, 30), a, temporary)
        }
        for index in 60..<80 {
            let temporary = rotate(a, 5) &+ (b ^ c ^ d) &+ e &+ 0xCA62_C1D6 &+ words[index]
            (e, d, c, b, a) = (d, c, rotate(b, 30), a, temporary)
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e)
    }

    @inline(__always)
    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value << count) | (value >> (32 - count))
    }
}
