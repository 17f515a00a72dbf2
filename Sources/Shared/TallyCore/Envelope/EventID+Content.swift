extension EventID {
    /// ``init(contentOf:)`` over a buffer, without copying it.
    package init(contentOf bytes: UnsafeBufferPointer<UInt8>) {
        var first: UInt64 = 0x243F_6A88_85A3_08D3 ^ UInt64(bytes.count)
        var second: UInt64 = 0x1319_8A2E_0370_7344 &+ UInt64(bytes.count)
        var index = 0
        let raw = UnsafeRawBufferPointer(bytes)
        while index + 8 <= bytes.count {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            first = Self.mix(first ^ word, 0xA076_1D64_78BD_642F)
            second = Self.mix(second &+ word, 0xE703_7ED1_A0B4_28DB)
            index += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while index < bytes.count {
            tail |= UInt64(bytes[index]) << shift
            shift += 8
            index += 1
        }
        first = Self.mix(first ^ tail, 0x8EBC_6AF0_9C88_C6E3)
        second = Self.mix(second &+ tail ^ first, 0x5899_65CC_7537_4CC3)
        first = Self.mix(first ^ second, 0x1D8E_4E27_C47D_124F)
        self.init(
            high: (first & 0xFFFF_FFFF_FFFF_0FFF) | 0x8000,
            low: (second & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        )
    }

    /// A stable id derived from content bytes: a 128-bit hash laid out as an RFC 9562 UUIDv8
    /// (version 8, "custom"). Ingesting the same line twice gives the same id, so stores keep it once.
    ///
    /// The hash is two independent 64-bit lanes of the wyhash mixing function over 8-byte words;
    /// not cryptographic, but 122 well-mixed bits make an accidental collision among billions of
    /// events vanishingly unlikely.
    package init(contentOf bytes: some Collection<UInt8>) {
        let array = Array(bytes)
        self = array.withUnsafeBufferPointer { EventID(contentOf: $0) }
    }

    @inline(__always)
    private static func mix(_ value: UInt64, _ key: UInt64) -> UInt64 {
        let product = value.multipliedFullWidth(by: key)
        return product.high ^ product.low
    }
}
