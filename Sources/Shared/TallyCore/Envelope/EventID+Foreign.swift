extension EventID {
    /// The namespace of tally's name-based event ids: `f105c21a-08e0-5751-8548-82d7eca2ad03`,
    /// itself the RFC 9562 version-5 UUID of the name `tally:event-id` in the URL namespace.
    package static let foreignIDNamespace = EventID(high: 0xF105_C21A_08E0_5751, low: 0x8548_82D7_ECA2_AD03)

    /// The RFC 9562 version-5 (SHA-1, name-based) UUID of `name`'s UTF-8 bytes in
    /// ``foreignIDNamespace``: how a foreign id that is not a UUID (a Segment `messageId`, a hash)
    /// becomes an event id. The same string always gives the same id, in any UUIDv5 library:
    /// Python's `uuid.uuid5(uuid.UUID("f105c21a-08e0-5751-8548-82d7eca2ad03"), name)`.
    package init(foreignID name: String) {
        var name = name
        let digest = name.withUTF8 { utf8 in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16 + utf8.count) { message in
                for index in 0..<8 {
                    message[index] = UInt8(truncatingIfNeeded: Self.foreignIDNamespace.high >> UInt64(56 - index * 8))
                    message[8 + index] = UInt8(
                        truncatingIfNeeded: Self.foreignIDNamespace.low >> UInt64(56 - index * 8)
                    )
                }
                if !utf8.isEmpty { (message.baseAddress! + 16).initialize(from: utf8.baseAddress!, count: utf8.count) }
                return SHA1.digest(UnsafeBufferPointer(message))
            }
        }
        let high = UInt64(digest.0) << 32 | UInt64(digest.1)
        let low = UInt64(digest.2) << 32 | UInt64(digest.3)
        self.init(
            high: (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x5000,
            low: (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        )
    }

    /// ``init(uuidText:)`` over UTF-8 bytes.
    package init?(uuidText bytes: UnsafeBufferPointer<UInt8>) {
        if let canonical = EventID(canonicalBytes: bytes) {
            self = canonical
            return
        }
        var index = 0
        var end = bytes.count
        if end > 0, bytes[0] == UInt8(ascii: "{") {
            guard bytes[end - 1] == UInt8(ascii: "}") else { return nil }
            index = 1
            end -= 1
        }
        var high: UInt64 = 0
        var low: UInt64 = 0
        for digit in 0..<32 {
            guard index < end, let value = Self.hexDigitValue(bytes[index]) else { return nil }
            if digit < 16 { high = high << 4 | UInt64(value) } else { low = low << 4 | UInt64(value) }
            index += 1
            if digit % 4 == 3, digit < 31, index < end, bytes[index] == UInt8(ascii: "-") { index += 1 }
        }
        guard index == end else { return nil }
        self.init(high: high, low: low)
    }

    /// Parses a UUID in any textual form PostgreSQL's `uuid` type accepts: 32 hex digits of either
    /// case, optionally in braces, with a hyphen allowed after any group of four digits
    /// (`A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11`, `a0eebc999c0b4ef8bb6d6bb9bd380a11`,
    /// `{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}`). Nil for anything else.
    package init?(uuidText text: String) {
        var text = text
        guard let id = text.withUTF8({ EventID(uuidText: $0) }) else { return nil }
        self = id
    }
}
