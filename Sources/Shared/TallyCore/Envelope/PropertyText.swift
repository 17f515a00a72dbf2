#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Properties kept as the JSON object text they arrived in, with the place of each member: what
/// a JSON source's `properties` become when nothing needs their values one by one.
///
/// Reading an object into key-value pairs made a `String` of every key and string value, a
/// ``RawJSON`` of every nested value, and sorted the keys as strings: two thirds of decoding a
/// Segment `Order Completed` call. Here the object is scanned once (validated by the parser's own
/// rules), its members are sorted by their key bytes in place, and the text is kept. Writers copy
/// members out of it (the bytes they would write anyway: see ``appendJSON(to:)``); the validator
/// checks the text against a plan compiled for it and the size limits against ``summary``; any
/// other use reads the pairs from the text again (``pairs``), as the parser would have built them.
///
/// Only objects with plain keys (no escapes) and no key given twice are kept so; the parser reads
/// the others into pairs.
///
/// One allocation holds the member table and then the text's bytes (a class with two arrays was
/// three, each made and freed per event).
///
/// Never mutated once made, and it holds plain values only: safe to share between threads
/// (`ManagedBuffer` cannot be declared `Sendable`; ``EventProperties`` vouches for it).
package final class PropertyText: ManagedBuffer<PropertyText.Header, PropertyText.Member> {
    /// The sizes of the two parts, and the summary.
    package struct Header {
        var memberCount: Int
        var byteCount: Int
        var summary: Summary
    }

    /// One member: where its key and value are in the text.
    package struct Member {
        /// The key's first byte (after its opening quote).
        package var keyStart: Int32
        package var keyCount: Int32
        /// The value's first byte.
        package var valueStart: Int32
        /// Past the value's last byte.
        package var valueEnd: Int32
        /// A string value with an escape: written again from its decoded text (tally's escaping).
        var needsRewrite: Bool
        /// The key's first eight bytes as one number (zero-padded), for sorting.
        var keyPrefix: UInt64 = 0
    }

    /// Bounds over all members for the validator's size limits: each at least what the pairs'
    /// own checks would find (so within the limits here means within them there).
    package struct Summary: Sendable {
        /// The longest key, the members' and any inside their values, in UTF-8 bytes.
        package var longestKey: Int32 = 0
        /// The longest string value, at any depth, in UTF-8 bytes once unescaped.
        package var longestString: Int32 = 0
        /// The deepest nesting inside one value.
        package var depth: Int32 = 0
        /// Values inside non-string members, each number and the members themselves included.
        package var nestedValues: Int32 = 0
        /// At least the validator's per-property size estimate.
        package var estimatedBytes = 0
    }

    /// `members` (sorted by key bytes, keys distinct) of the object text `bytes`, `{` to `}`.
    static func make(
        bytes: UnsafeBufferPointer<UInt8>,
        members: UnsafeBufferPointer<Member>,
        summary: Summary
    ) -> PropertyText {
        let stride = MemoryLayout<Member>.stride
        let buffer = create(minimumCapacity: members.count + (bytes.count + stride - 1) / stride) { _ in
            Header(memberCount: members.count, byteCount: bytes.count, summary: summary)
        }
        buffer.withUnsafeMutablePointerToElements { elements in
            if let source = members.baseAddress { elements.initialize(from: source, count: members.count) }
            if let source = bytes.baseAddress {
                UnsafeMutableRawPointer(elements + members.count)
                    .initializeMemory(as: UInt8.self, from: source, count: bytes.count)
            }
        }
        return unsafeDowncast(buffer, to: PropertyText.self)
    }

    /// What the size limits need, for every member at once.
    package var summary: Summary { withUnsafeMutablePointerToHeader { $0.pointee.summary } }

    /// The number of members.
    var count: Int { withUnsafeMutablePointerToHeader { $0.pointee.memberCount } }

    /// Calls `body` with the text and the members (in key order).
    package func withMembers<Result>(
        _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<Member>) -> Result
    ) -> Result {
        withUnsafeMutablePointers { header, elements in
            let count = header.pointee.memberCount
            let bytes = UnsafeRawPointer(elements + count).assumingMemoryBound(to: UInt8.self)
            return body(
                UnsafeBufferPointer(start: bytes, count: header.pointee.byteCount),
                UnsafeBufferPointer(start: elements, count: count)
            )
        }
    }

    /// The members as the pairs ``JSONParser/parsePropertyObject()`` builds from the same text.
    var pairs: [EventProperties.Pair] {
        withMembers { buffer, members in
            members.map { member in
                let key = UnsafeBufferPointer(
                    rebasing: buffer[Int(member.keyStart)..<Int(member.keyStart + member.keyCount)]
                )
                var parser = JSONParser(bytes: buffer, maxDepth: .max)
                parser.offset = Int(member.valueStart)
                // The text was read by the same parser's rules: it cannot fail now.
                return (String(decoding: key, as: UTF8.self), (try? parser.parsePropertyValue()) ?? .null)
            }
        }
    }

    /// The value of the member named `key`.
    func value(of key: String) -> PropertyValue? {
        pairs.first { $0.key == key }?.value
    }

    /// Whether there is a member named `key`.
    func contains(_ key: String) -> Bool {
        var key = key
        return key.withUTF8 { wanted in
            withMembers { buffer, members in
                members.contains { member in
                    Int(member.keyCount) == wanted.count
                        && (wanted.isEmpty
                            || memcmp(buffer.baseAddress! + Int(member.keyStart), wanted.baseAddress!, wanted.count)
                                == 0)
                }
            }
        }
    }

    /// Calls `body` with each member's index (in key order) and key bytes.
    package func forEachKey(_ body: (Int, UnsafeBufferPointer<UInt8>) -> Void) {
        withMembers { buffer, members in
            for (index, member) in members.enumerated() {
                body(
                    index,
                    UnsafeBufferPointer(rebasing: buffer[Int(member.keyStart)..<Int(member.keyStart + member.keyCount)])
                )
            }
        }
    }

    /// The value of member `index` when it is a string; nil for any other value.
    package func string(at index: Int) -> String? {
        withMembers { buffer, members in
            let member = members[index]
            let value = UnsafeBufferPointer(rebasing: buffer[Int(member.valueStart)..<Int(member.valueEnd)])
            guard value.first == UInt8(ascii: "\"") else { return nil }
            if !member.needsRewrite {
                return String(
                    decoding: UnsafeBufferPointer(rebasing: value[(value.startIndex + 1)..<(value.endIndex - 1)]),
                    as: UTF8.self
                )
            }
            var parser = JSONParser(bytes: value)
            return try? parser.parseString()
        }
    }

    /// The text of the last string or number member named `first` and of the last named
    /// `second` inside member `index`'s value, when that is an object (``RawJSON/memberText(_:)``
    /// for two keys in one pass).
    package func memberTexts(at index: Int, _ first: StaticString, _ second: StaticString) -> (String?, String?) {
        withMembers { buffer, members in
            let member = members[index]
            let value = UnsafeBufferPointer(rebasing: buffer[Int(member.valueStart)..<Int(member.valueEnd)])
            guard value.first == UInt8(ascii: "{") else { return (nil, nil) }
            var parser = JSONParser(bytes: value, maxDepth: .max)
            return (try? parser.lastMemberTexts(first, second)) ?? (nil, nil)
        }
    }

    /// The same text without the members whose indices are set in `mask` (bit `i` for member
    /// `i`, the first 64).
    package func removing(_ mask: UInt64) -> PropertyText {
        guard mask != 0 else { return self }
        return withMembers { bytes, members in
            withUnsafeTemporaryAllocation(of: Member.self, capacity: members.count) { kept in
                var count = 0
                for (index, member) in members.enumerated() where index >= 64 || mask & 1 << UInt64(index) == 0 {
                    (kept.baseAddress! + count).initialize(to: member)
                    count += 1
                }
                return PropertyText.make(
                    bytes: bytes,
                    members: UnsafeBufferPointer(rebasing: kept[0..<count]),
                    summary: summary
                )
            }
        }
    }

    /// Appends the object as tally writes properties: members in key byte order, no whitespace
    /// between them, keys and values as ``JSONWriter`` writes them. That is their text as sent:
    /// a plain key or string is written unchanged, a number is kept as spelled (a typed one only
    /// when tally writes it back the same), and nested values are raw JSON. Only strings with
    /// escapes are decoded and written again.
    package func appendJSON(to output: inout [UInt8]) {
        output.append(UInt8(ascii: "{"))
        var first = true
        appendMembers(to: &output, first: &first)
        output.append(UInt8(ascii: "}"))
    }

    /// ``appendJSON(to:)`` without the braces, after other members unless `first`.
    package func appendMembers(to output: inout [UInt8], first: inout Bool) {
        withMembers { buffer, members in
            for member in members {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                // The key with its quotes, and the colon.
                output.append(
                    contentsOf: UnsafeBufferPointer(
                        rebasing: buffer[Int(member.keyStart) - 1..<Int(member.keyStart + member.keyCount) + 1]
                    )
                )
                output.append(UInt8(ascii: ":"))
                let value = UnsafeBufferPointer(rebasing: buffer[Int(member.valueStart)..<Int(member.valueEnd)])
                if member.needsRewrite {
                    var parser = JSONParser(bytes: value)
                    JSONWriter.appendString((try? parser.parseString()) ?? "", to: &output)
                } else {
                    output.append(contentsOf: value)
                }
            }
        }
    }

    /// Sorts `members` by key bytes in place; false when two keys are equal.
    static func sortByKey(_ members: UnsafeMutableBufferPointer<Member>, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let base = bytes.baseAddress!
        for index in members.indices {
            let key = Int(members[index].keyStart)
            members[index].keyPrefix = keyPrefix(
                base + key,
                count: Int(members[index].keyCount),
                readable: bytes.count - key
            )
        }
        /// Negative, zero or positive as `lhs` sorts before, with or after `rhs`.
        func order(_ lhs: Member, _ rhs: Member) -> Int {
            // Keys mostly differ in their first eight bytes: one comparison, no call.
            if lhs.keyPrefix != rhs.keyPrefix { return lhs.keyPrefix < rhs.keyPrefix ? -1 : 1 }
            let common = Int(min(lhs.keyCount, rhs.keyCount))
            let order = common <= 8 ? 0 : memcmp(base + Int(lhs.keyStart), base + Int(rhs.keyStart), common)
            return order != 0 ? Int(order) : Int(lhs.keyCount - rhs.keyCount)
        }
        // Insertion sort: a handful of members, often nearly in order.
        for index in members.indices.dropFirst() {
            var position = index
            while position > 0 {
                let order = order(members[position], members[position - 1])
                if order == 0 { return false }
                if order > 0 { break }
                members.swapAt(position, position - 1)
                position -= 1
            }
        }
        return true
    }

    /// The first eight bytes of a key as a big-endian number, zeros past its end (a raw key holds
    /// no zero byte, so shorter keys sort first, as in byte order). `readable`: the bytes that
    /// may be read from the key's start.
    private static func keyPrefix(_ key: UnsafePointer<UInt8>, count: Int, readable: Int) -> UInt64 {
        if readable >= 8 {
            let word = UInt64(bigEndian: UnsafeRawPointer(key).loadUnaligned(as: UInt64.self))
            return count >= 8 ? word : word & ~(UInt64.max >> (count * 8))
        }
        var prefix: UInt64 = 0
        for index in 0..<8 { prefix = prefix << 8 | UInt64(index < count ? key[index] : 0) }
        return prefix
    }
}
