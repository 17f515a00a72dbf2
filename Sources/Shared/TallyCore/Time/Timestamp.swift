#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A point in time as nanoseconds since the Unix epoch, UTC.
///
/// Cheap to take (`clock_gettime`, no Foundation), exact to compare, and written as RFC 3339
/// with fractional seconds (`2026-11-22T04:42:22.123456Z`) by ``rfc3339``.
public struct Timestamp: Hashable, Comparable, Sendable {
    /// Nanoseconds since 1970-01-01T00:00:00Z.
    public var nanosecondsSinceEpoch: Int64

    /// Creates a timestamp from nanoseconds since the Unix epoch.
    public init(nanosecondsSinceEpoch: Int64) {
        self.nanosecondsSinceEpoch = nanosecondsSinceEpoch
    }

    /// Creates a timestamp from whole seconds and a nanosecond fraction.
    public init(secondsSinceEpoch: Int64, nanoseconds: Int64 = 0) {
        self.nanosecondsSinceEpoch = secondsSinceEpoch &* 1_000_000_000 &+ nanoseconds
    }

    /// The current wall-clock time.
    @inline(__always)
    public static func now() -> Timestamp {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Timestamp(nanosecondsSinceEpoch: Int64(spec.tv_sec) &* 1_000_000_000 &+ Int64(spec.tv_nsec))
    }

    /// Whole seconds since the epoch, rounded down (also for times before 1970).
    public var secondsSinceEpoch: Int64 {
        nanosecondsSinceEpoch >= 0
            ? nanosecondsSinceEpoch / 1_000_000_000
            : (nanosecondsSinceEpoch + 1) / 1_000_000_000 - 1
    }

    /// The nanoseconds past ``secondsSinceEpoch``, in `0..<1_000_000_000`.
    public var nanosecondOfSecond: Int64 {
        nanosecondsSinceEpoch - secondsSinceEpoch * 1_000_000_000
    }

    /// Milliseconds since the epoch, rounded down.
    public var millisecondsSinceEpoch: Int64 {
        secondsSinceEpoch * 1000 + nanosecondOfSecond / 1_000_000
    }

    /// The timestamp rounded down to whole microseconds: the precision tally stores (RFC 3339 with six
    /// fractional digits, PostgreSQL's `timestamptz`), so a stamped event reads back equal.
    public var truncatedToMicroseconds: Timestamp {
        Timestamp(nanosecondsSinceEpoch: nanosecondsSinceEpoch - (nanosecondOfSecond % 1_000))
    }

    /// The timestamp moved by a number of nanoseconds.
    public func advanced(byNanoseconds nanoseconds: Int64) -> Timestamp {
        Timestamp(nanosecondsSinceEpoch: nanosecondsSinceEpoch &+ nanoseconds)
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.nanosecondsSinceEpoch < rhs.nanosecondsSinceEpoch
    }
}

extension Timestamp: CustomStringConvertible {
    public var description: String { rfc3339 }
}
