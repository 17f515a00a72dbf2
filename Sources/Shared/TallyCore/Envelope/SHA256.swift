/// SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), for the app side: hashing personal data
/// before it leaves the device, and the per-user sampling decision.
///
/// Hand-written, like ``SHA1``, because `TallyCore` ships inside apps and depends on nothing
/// (Foundation has no SHA-2 on Linux). Incremental: ``update(_:)`` any number of times, then
/// ``finalize()``.
package struct SHA256: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )
    /// Bytes waiting for a whole 64-byte block.
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    /// A hash of nothing yet.
    package init() {
        pending.reserveCapacity(64)
    }

    /// Adds `bytes` to the message.
    package mutating func update(_ bytes: some Sequence<UInt8>) {
        // Whole blocks straight from contiguous bytes: iterating a generic sequence byte by byte
        // made a 43-byte key's hash ~4.5 µs.
        if bytes.withContiguousStorageIfAvailable({ update(buffer: $0) }) == nil {
            Array(bytes).withUnsafeBufferPointer { update(buffer: $0) }
        }
    }

    private mutating func update(buffer: UnsafeBufferPointer<UInt8>) {
        length &+= UInt64(buffer.count)
        var rest = buffer[...]
        if !pending.isEmpty {
            let taken = rest.prefix(64 - pending.count)
            pending.append(contentsOf: taken)
            rest = rest.dropFirst(taken.count)
            guard pending.count == 64 else { return }
            pending.withUnsafeBufferPointer { Self.compress($0, state: &state) }
            pending.removeAll(keepingCapacity: true)
        }
        while rest.count >= 64 {
            Self.compress(UnsafeBufferPointer(rebasing: rest.prefix(64)), state: &state)
            rest = rest.dropFirst(64)
        }
        pending.append(contentsOf: rest)
    }

    /// The 32-byte digest of the message.
    package consuming func finalize() -> [UInt8] {
        let bitLength = length &* 8
        var tail = pending
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        for index in (0..<8).reversed() { tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(index * 8))) }
        tail.withUnsafeBufferPointer { tail in
            for block in stride(from: 0, to: tail.count, by: 64) {
                Self.compress(UnsafeBufferPointer(rebasing: tail[block..<block + 64]), state: &state)
            }
        }
        var digest: [UInt8] = []
        digest.reserveCapacity(32)
        for word in [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7] {
            withUnsafeBytes(of: word.bigEndian) { digest.append(contentsOf: $0) }
        }
        return digest
    }

    /// The digest of `message`.
    package static func digest(_ message: some Sequence<UInt8>) -> [UInt8] {
        var hash = SHA256()
        hash.update(message)
        return hash.finalize()
    }

    /// HMAC-SHA-256 of `message` under `key` (RFC 2104: a key longer than a block is hashed first).
    package static func hmac(key: some Collection<UInt8>, message: some Sequence<UInt8>) -> [UInt8] {
        var block = key.count > 64 ? digest(key) : Array(key)
        block += repeatElement(0, count: 64 - block.count)
        var inner = SHA256()
        inner.update(block.map { $0 ^ 0x36 })
        inner.update(message)
        var outer = SHA256()
        outer.update(block.map { $0 ^ 0x5c })
        outer.update(inner.finalize())
        return outer.finalize()
    }

    /// Lowercase hex of `bytes` (`e3b0c442…`).
    package static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static let constants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    private static func compress(
        _ block: UnsafeBufferPointer<UInt8>,
        state: inout (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)
    ) {
        // The schedule on the stack and the constants read once: a heap array per block and a
        // `swift_once` per round made a key's hash ~4.5 µs (the collector hashes one per request).
        let constants = Self.constants
        var (a, b, c, d, e, f, g, h) = state
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { words in
            for index in 0..<16 {
                words[index] =
                    UInt32(block[index * 4]) << 24 | UInt32(block[index * 4 + 1]) << 16
                    | UInt32(block[index * 4 + 2]) << 8 | UInt32(block[index * 4 + 3])
            }
            for index in 16..<64 {
                let s0 = rotate(words[index - 15], 7) ^ rotate(words[index - 15], 18) ^ (words[index - 15] >> 3)
                let s1 = rotate(words[index - 2], 17) ^ rotate(words[index - 2], 19) ^ (words[index - 2] >> 10)
                words[index] = words[index - 16] &+ s0 &+ words[index - 7] &+ s1
            }
            for index in 0..<64 {
                let s1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
                let choice = (e & f) ^ (~e & g)
                let temporary1 = h &+ s1 &+ choice &+ constants[index] &+ words[index]
                let s0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
                let majority = (a & b) ^ (a & c) ^ (b & c)
                let temporary2 = s0 &+ majority
                (h, g, f, e, d, c, b, a) = (g, f, e, d &+ temporary1, c, b, a, temporary1 &+ temporary2)
            }
        }
        state = (
            state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e, state.5 &+ f, state.6 &+ g,
            state.7 &+ h
        )
    }

    @inline(__always)
    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value >> count) | (value << (32 - count))
    }
}
