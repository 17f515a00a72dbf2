#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A string compared and hashed by its UTF-8 bytes, the way PostgreSQL compares text.
///
/// Swift's `String` equality is Unicode canonical equivalence: "é" (U+00E9) equals "e" + U+0301.
/// Counting distinct users with a `Set<String>` would merge two ids that the database (and any
/// byte-wise consumer) keeps apart, so distinct counts use this wrapper instead.
package struct ExactString: Hashable, Sendable, Comparable {
    /// The string.
    package let string: String

    /// Wraps `string`.
    package init(_ string: String) {
        self.string = string
    }

    package static func == (lhs: ExactString, rhs: ExactString) -> Bool {
        let (left, right) = (lhs.string.utf8, rhs.string.utf8)
        guard left.count == right.count else { return false }
        let equal = left.withContiguousStorageIfAvailable { left in
            right.withContiguousStorageIfAvailable { right in
                left.count == 0 || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0
            }
        }
        return (equal ?? nil) ?? left.elementsEqual(right)
    }

    /// Byte order, as PostgreSQL's "C" collation sorts.
    package static func < (lhs: ExactString, rhs: ExactString) -> Bool {
        let (left, right) = (lhs.string.utf8, rhs.string.utf8)
        let ordered = left.withContiguousStorageIfAvailable { left in
            right.withContiguousStorageIfAvailable { right in
                let common = min(left.count, right.count)
                let order = common == 0 ? 0 : memcmp(left.baseAddress!, right.baseAddress!, common)
                return order != 0 ? order < 0 : left.count < right.count
            }
        }
        return (ordered ?? nil) ?? left.lexicographicallyPrecedes(right)
    }

    package func hash(into hasher: inout Hasher) {
        let hashed: Bool? = string.utf8.withContiguousStorageIfAvailable { bytes in
            hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
            return true
        }
        if hashed == nil {
            for byte in string.utf8 { hasher.combine(byte) }
        }
        hasher.combine(string.utf8.count)
    }
}
