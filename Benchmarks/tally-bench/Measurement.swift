import TallyCore

/// Nanosecond samples and the statistics the report quotes.
struct Samples {
    private(set) var values: [Int64] = []

    init(capacity: Int) {
        values.reserveCapacity(capacity)
    }

    mutating func append(_ value: Int64) { values.append(value) }
    mutating func append(contentsOf other: Samples) { values.append(contentsOf: other.values) }

    func percentile(_ fraction: Double) -> Int64 {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }

    var median: Int64 { percentile(0.5) }
}

/// Monotonic nanoseconds (`CLOCK_MONOTONIC` through the vDSO: ~20 ns a read).
@inline(__always)
func monotonicNanoseconds() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

func format(nanoseconds: Double) -> String {
    nanoseconds >= 1_000 ? "\(rounded(nanoseconds / 1_000)) µs" : "\(rounded(nanoseconds)) ns"
}

func rounded(_ value: Double) -> String {
    let scaled = (value * 100).rounded() / 100
    return "\(scaled)"
}
