package import TallyCore

/// Trends (docs/reports.md, Trends): per selector (and breakdown value), the measure per bucket,
/// over the range, and with `compare` over the previous period.
package struct TrendsEvaluation: ReportEvaluation {
    private let scope: ReportScope
    private let definition: TrendsDefinition
    private let boundaries: [Timestamp]
    private let previousBoundaries: [Timestamp]
    private let previousSince: Timestamp
    private var actors = ActorTable()
    private var sampled = false

    private struct Series {
        var buckets: [MeasureAccumulator]
        var total: MeasureAccumulator
        var previous: [MeasureAccumulator]
        var previousTotal: MeasureAccumulator

        init(_ measure: ReportMeasure, buckets: Int, previousBuckets: Int) {
            self.buckets = Array(repeating: MeasureAccumulator(measure), count: buckets)
            total = MeasureAccumulator(measure)
            previous = Array(repeating: MeasureAccumulator(measure), count: previousBuckets)
            previousTotal = MeasureAccumulator(measure)
        }

        mutating func merge(_ other: Series) {
            for index in buckets.indices { buckets[index].merge(other.buckets[index]) }
            total.merge(other.total)
            for index in previous.indices { previous[index].merge(other.previous[index]) }
            previousTotal.merge(other.previousTotal)
        }
    }

    /// Per selector, per breakdown value (`""` without a breakdown).
    private var series: [[String: Series]]

    package init(scope: ReportScope, definition: TrendsDefinition) {
        self.scope = scope
        self.definition = definition
        boundaries = scope.zone.boundaries(definition.interval, since: scope.since, until: scope.until)
        let length = scope.until.nanosecondsSinceEpoch - scope.since.nanosecondsSinceEpoch
        previousSince = scope.since.advanced(byNanoseconds: -length)
        previousBoundaries =
            definition.compare
            ? scope.zone.boundaries(definition.interval, since: previousSince, until: scope.since) : []
        series = Array(repeating: [:], count: definition.events.count)
    }

    package var needs: EventNeeds {
        EventNeeds(
            from: definition.compare ? previousSince : scope.since,
            to: scope.until,
            names: definition.events.contains { $0.names.isEmpty } ? nil : Set(definition.events.flatMap(\.names))
        )
    }

    package mutating func consume(_ event: EventEnvelope) {
        let time = event.occurredAt
        let current = !(time < scope.since) && time < scope.until
        let previous = definition.compare && !(time < previousSince) && time < scope.since
        guard current || previous, scope.passesFilters(event) else { return }
        var actor: Int32?
        for (index, selector) in definition.events.enumerated() where selector.matches(event) {
            if event.sampleRate != nil { sampled = true }
            if actor == nil, let id = scope.actor(of: event) { actor = actors.index(id) }
            let key = definition.breakdown.map { BreakdownValue.of($0, in: event) } ?? ""
            var entry =
                series[index][key]
                ?? Series(definition.measure, buckets: boundaries.count - 1, previousBuckets: previousBuckets)
            if current {
                if let bucket = boundaries.bucketIndex(of: time) { entry.buckets[bucket].add(event, actor: actor) }
                entry.total.add(event, actor: actor)
            } else {
                if let bucket = previousBoundaries.bucketIndex(of: time), bucket < entry.previous.count {
                    entry.previous[bucket].add(event, actor: actor)
                }
                entry.previousTotal.add(event, actor: actor)
            }
            series[index][key] = entry
        }
    }

    /// The names a store's hourly counts can answer this report for (`tally.rollup_hourly`), when
    /// they give exactly what the events would: event counts of named selectors without filters or
    /// breakdown, and every bucket boundary and both ends of the range (and of the previous
    /// period) on a whole UTC hour, so that each hour lies in one bucket.
    package var hourlyCountNames: Set<String>? {
        guard definition.measure == .count, definition.breakdown == nil, scope.report.filters.isEmpty,
            definition.events.allSatisfy({ $0.filters.isEmpty && !$0.names.isEmpty })
        else { return nil }
        let hour: Int64 = 3_600_000_000_000
        let instants = boundaries + previousBoundaries + [scope.since, scope.until, previousSince]
        guard instants.allSatisfy({ $0.nanosecondsSinceEpoch % hour == 0 }) else { return nil }
        return Set(definition.events.flatMap(\.names))
    }

    /// `events` unsampled events named `name` in the UTC hour starting at `hour`.
    package mutating func consumeHourly(name: String, hour: Timestamp, events: Int) {
        let current = !(hour < scope.since) && hour < scope.until
        let previous = definition.compare && !(hour < previousSince) && hour < scope.since
        guard current || previous else { return }
        let bucket = current ? boundaries.bucketIndex(of: hour) : previousBoundaries.bucketIndex(of: hour)
        for (index, selector) in definition.events.enumerated() where selector.names.contains(name) {
            // Mutated in place: a copy of the series per row cost more than the query.
            if series[index][""] == nil {
                series[index][""] = Series(
                    definition.measure,
                    buckets: boundaries.count - 1,
                    previousBuckets: previousBuckets
                )
            }
            if current {
                if let bucket { series[index][""]!.buckets[bucket].add(events: events) }
                series[index][""]!.total.add(events: events)
            } else {
                if let bucket, bucket < previousBuckets { series[index][""]!.previous[bucket].add(events: events) }
                series[index][""]!.previousTotal.add(events: events)
            }
        }
    }

    /// The previous period's buckets paired with the range's, in order.
    private var previousBuckets: Int { definition.compare ? boundaries.count - 1 : 0 }

    package mutating func finish() -> ReportResult {
        let bucketCount = boundaries.count - 1
        var result = TrendsResult(
            interval: definition.interval,
            measure: definition.measure,
            buckets: Array(boundaries.dropLast()),
            series: [],
            sampled: sampled
        )
        for (index, selector) in definition.events.enumerated() {
            var ordered = series[index].sorted { lhs, rhs in
                let (a, b) = (lhs.value.total.value, rhs.value.total.value)
                if a != b { return MeasureValue.isLess(b, a) }
                return BreakdownValue.precedes(lhs.key, rhs.key)
            }
            if definition.breakdown != nil, ordered.count > definition.top {
                var other = ordered[definition.top]
                other.key = BreakdownValue.other
                for extra in ordered[(definition.top + 1)...] { other.value.merge(extra.value) }
                ordered = Array(ordered[..<definition.top]) + [(key: BreakdownValue.other, value: other.value)]
            }
            // Zero-filled: an event with nothing in the range still has its series (without a
            // breakdown; with one, there is no value to name).
            if ordered.isEmpty, definition.breakdown == nil {
                ordered = [
                    (key: "", value: Series(definition.measure, buckets: bucketCount, previousBuckets: previousBuckets))
                ]
            }
            for (key, entry) in ordered {
                result.series.append(
                    TrendsResult.Series(
                        event: selector.label,
                        breakdown: definition.breakdown == nil ? nil : key,
                        values: entry.buckets.map(\.value),
                        total: entry.total.value,
                        valuesUsed: definition.measure.property == nil ? nil : entry.buckets.map(\.valuesUsed),
                        valuesUsedTotal: definition.measure.property == nil ? nil : entry.total.valuesUsed,
                        estimated: definition.measure == .count ? entry.buckets.map(\.estimated) : nil,
                        estimatedTotal: definition.measure == .count ? entry.total.estimated : nil,
                        previous: definition.compare ? entry.previous.map(\.value) : nil,
                        previousTotal: definition.compare ? entry.previousTotal.value : nil
                    )
                )
            }
        }
        return .trends(result)
    }
}

/// What a trends report answers.
package struct TrendsResult: Sendable {
    package struct Series: Sendable {
        package var event: String
        package var breakdown: String?
        package var values: [MeasureValue]
        package var total: MeasureValue
        /// Decimal measures: how many property values each bucket (and the range) used.
        package var valuesUsed: [Int]?
        package var valuesUsedTotal: Int?
        package var estimated: [Int]?
        package var estimatedTotal: Int?
        package var previous: [MeasureValue]?
        package var previousTotal: MeasureValue?
    }

    package var interval: ReportInterval
    package var measure: ReportMeasure
    package var buckets: [Timestamp]
    package var series: [Series]
    package var sampled: Bool
}
