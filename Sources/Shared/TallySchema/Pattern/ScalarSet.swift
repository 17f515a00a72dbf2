/// A set of Unicode scalars as sorted, merged ranges: the character classes of a pattern.
struct ScalarSet: Hashable, Sendable {
    private(set) var ranges: [ClosedRange<UInt32>] = []

    init(_ ranges: [ClosedRange<UInt32>] = []) {
        for range in ranges { insert(range) }
    }

    mutating func insert(_ range: ClosedRange<UInt32>) {
        ranges.append(range)
        ranges.sort { $0.lowerBound < $1.lowerBound }
        var merged: [ClosedRange<UInt32>] = []
        for range in ranges {
            if let last = merged.last, range.lowerBound <= last.upperBound &+ 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        ranges = merged
    }

    mutating func formUnion(_ other: ScalarSet) {
        for range in other.ranges { insert(range) }
    }

    /// Every scalar not in the set.
    var inverted: ScalarSet {
        var result = ScalarSet()
        var next: UInt32 = 0
        for range in ranges {
            if range.lowerBound > next { result.ranges.append(next...(range.lowerBound - 1)) }
            next = range.upperBound &+ 1
            if range.upperBound == 0x10FFFF { return result }
        }
        result.ranges.append(next...0x10FFFF)
        return result
    }

    @inline(__always)
    func contains(_ scalar: UInt32) -> Bool {
        // Few ranges in practice: a linear scan beats a binary search.
        for range in ranges {
            if scalar < range.lowerBound { return false }
            if scalar <= range.upperBound { return true }
        }
        return false
    }

    static let digits = ScalarSet([0x30...0x39])
    static let word = ScalarSet([0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A])
    /// ECMA-262 WhiteSpace and LineTerminator.
    static let space = ScalarSet([
        0x09...0x0D, 0x20...0x20, 0xA0...0xA0, 0x1680...0x1680, 0x2000...0x200A, 0x2028...0x2029,
        0x202F...0x202F, 0x205F...0x205F, 0x3000...0x3000, 0xFEFF...0xFEFF,
    ])
    /// What `.` matches: everything but line terminators.
    static let dot = ScalarSet([0x0A...0x0A, 0x0D...0x0D, 0x2028...0x2029]).inverted
}
