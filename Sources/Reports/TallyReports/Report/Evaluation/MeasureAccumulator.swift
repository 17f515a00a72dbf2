package import TallyCore

/// A measure over some events (docs/reports.md, Trends): kept as its raw material so that two
/// accumulations merge exactly (the `(other)` row, a series' total).
package struct MeasureAccumulator: Sendable {
    package let measure: ReportMeasure
    private(set) var events = 0
    /// Events by their sample rate (absent: 1), for the estimated total.
    private var byRate: [Double: Int] = [:]
    private var actors = Set<Int32>()
    private var sum = ExactDecimal.zero
    private var values: [ExactDecimal] = []
    private var valueCount = 0
    private var minimum: ExactDecimal?
    private var maximum: ExactDecimal?

    package init(_ measure: ReportMeasure) {
        self.measure = measure
    }

    /// Adds one event (its actor index, when it has an actor).
    package mutating func add(_ event: EventEnvelope, actor: Int32?) {
        events += 1
        byRate[event.sampleRate ?? 1, default: 0] += 1
        switch measure {
        case .count: break
        case .actors: if let actor { actors.insert(actor) }
        case .sum(let key), .average(let key):
            if let value = event.properties[key]?.exactDecimal {
                sum += value
                valueCount += 1
            }
        case .minimum(let key):
            if let value = event.properties[key]?.exactDecimal {
                valueCount += 1
                if minimum.map({ value < $0 }) ?? true { minimum = value }
            }
        case .maximum(let key):
            if let value = event.properties[key]?.exactDecimal {
                valueCount += 1
                if maximum.map({ $0 < value }) ?? true { maximum = value }
            }
        case .median(let key), .percentile90(let key):
            if let value = event.properties[key]?.exactDecimal {
                values.append(value)
                valueCount += 1
            }
        }
    }

    /// Adds one event of the `actors` measure, known by its actor index and sample rate alone.
    package mutating func add(actor: Int32?, sampleRate: Double?) {
        events += 1
        byRate[sampleRate ?? 1, default: 0] += 1
        if let actor { actors.insert(actor) }
    }

    /// Adds `events` unsampled events (a count: only for the `count` measure).
    package mutating func add(events count: Int) {
        events += count
        byRate[1, default: 0] += count
    }

    /// Adds everything `other` holds.
    package mutating func merge(_ other: MeasureAccumulator) {
        events += other.events
        for (rate, count) in other.byRate { byRate[rate, default: 0] += count }
        actors.formUnion(other.actors)
        sum += other.sum
        values += other.values
        valueCount += other.valueCount
        if let value = other.minimum, minimum.map({ value < $0 }) ?? true { minimum = value }
        if let value = other.maximum, maximum.map({ $0 < value }) ?? true { maximum = value }
    }

    /// The actors counted (for `actors`).
    package var actorSet: Set<Int32> { actors }

    /// Σ 1/sample_rate over the events, rounded to the nearest integer (halves up, as `tally
    /// summary` rounds its estimate); summed per rate in rate order, so every store computes it
    /// the same way.
    package var estimated: Int {
        var total = 0.0
        for (rate, count) in byRate.sorted(by: { $0.key < $1.key }) { total += Double(count) / rate }
        return Int(total.rounded(.toNearestOrAwayFromZero))
    }

    /// How many property values the decimal measures used.
    package var valuesUsed: Int { valueCount }

    package var value: MeasureValue {
        switch measure {
        case .count: return .count(events)
        case .actors: return .count(actors.count)
        case .sum: return valueCount == 0 ? .none : .decimal(sum)
        case .average: return valueCount == 0 ? .none : .decimal(sum.divided(by: valueCount, places: 6))
        case .minimum: return minimum.map(MeasureValue.decimal) ?? .none
        case .maximum: return maximum.map(MeasureValue.decimal) ?? .none
        case .median, .percentile90:
            guard !values.isEmpty else { return .none }
            let sorted = values.sorted()
            let share = if case .median = measure { 5 } else { 9 }
            // Nearest rank: ⌈share/10 · n⌉, 1-based.
            let rank = (share * sorted.count + 9) / 10
            return .decimal(sorted[max(rank, 1) - 1])
        }
    }
}
