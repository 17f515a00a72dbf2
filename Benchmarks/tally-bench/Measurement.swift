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

/// `rounds` × `perRound` timed calls of `call`, with `between` (untimed) after each round.
func timeCalls(rounds: Int, perRound: Int, _ call: () -> Void, between: () async -> Void) async -> Samples {
    var samples = Samples(capacity: rounds * perRound)
    for _ in 0..<rounds {
        var round = Samples(capacity: perRound)
        for _ in 0..<perRound {
            let start = monotonicNanoseconds()
            call()
            round.append(monotonicNanoseconds() - start)
        }
        samples.append(contentsOf: round)
        await between()
    }
    return samples
}

/// The median time of two clock reads with nothing between: what each sample carries on top.
func timerOverhead() -> Int64 {
    var overhead = Samples(capacity: 100_000)
    for _ in 0..<100_000 {
        let start = monotonicNanoseconds()
        overhead.append(monotonicNanoseconds() - start)
    }
    return overhead.median
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
