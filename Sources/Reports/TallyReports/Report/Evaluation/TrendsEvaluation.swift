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

        /// Adds to the bucket (of the range, or of the previous period) and its total.
        mutating func add(current: Bool, bucket: Int?, _ body: (inout MeasureAccumulator) -> Void) {
            if current {
                if let bucket { body(&buckets[bucket]) }
                body(&total)
            } else {
                if let bucket, bucket < previous.count { body(&previous[bucket]) }
                body(&previousTotal)
            }
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
            let bucket = current ? boundaries.bucketIndex(of: time) : previousBoundaries.bucketIndex(of: time)
            // Mutated in place: a copy of the series per event copied its actor sets, each time.
            if series[index][key] == nil { series[index][key] = newSeries() }
            series[index][key]!.add(current: current, bucket: bucket) { $0.add(event, actor: actor) }
        }
    }

    private func newSeries() -> Series {
        Series(definition.measure, buckets: boundaries.count - 1, previousBuckets: previousBuckets)
    }

    /// What a store's hourly counts (`tally.rollup_hourly`, by hour, feature and name) can answer
    /// this report from, when they give exactly what the events would: event counts of selectors
    /// without filters, broken down by nothing, the name or the feature. An hour holding a bucket
    /// boundary or an end of the range (or of the previous period), as ranges ending now do, is
    /// read from the events instead (``HourlyCountRead/eventHours``), so that each hour counted
    /// lies in one bucket. Nil when they cannot (or when too many hours would be read so, as with
    /// days in a zone off whole hours).
    package var hourlyCounts: HourlyCountRead? {
        guard definition.measure == .count, scope.report.filters.isEmpty,
            definition.events.allSatisfy({ $0.filters.isEmpty })
        else { return nil }
        switch definition.breakdown {
        case nil, .name?, .feature?: break
        default: return nil
        }
        let hour: Int64 = 3_600_000_000_000
        let instants = boundaries + previousBoundaries + [scope.since, scope.until, previousSince]
        var eventHours = Set<Int64>()
        for instant in instants where instant.nanosecondsSinceEpoch % hour != 0 {
            let nanoseconds = instant.nanosecondsSinceEpoch
            eventHours.insert(nanoseconds - ((nanoseconds % hour) + hour) % hour)
        }
        guard eventHours.count <= 8 else { return nil }
        let names =
            definition.events.contains(where: { $0.names.isEmpty }) ? nil : Set(definition.events.flatMap(\.names))
        return HourlyCountRead(
            names: names,
            eventHours: eventHours.sorted().map { Timestamp(nanosecondsSinceEpoch: $0) }
        )
    }

    /// The hourly counts to read for ``hourlyCounts``: of these names (nil: every name), all but
    /// the hours starting at `eventHours`, whose events are read instead (``consume(_:)``).
    package struct HourlyCountRead: Sendable {
        package var names: Set<String>?
        package var eventHours: [Timestamp]
    }

    /// The names whose events a store can hand over as records (``consumeRecord(name:time:actor:sampleRate:)``)
    /// for this report: distinct actors of named selectors, or of every event, without filters or
    /// breakdown. Nil when it cannot; `names` nil: every name.
    package var actorRecords: NamesRead? {
        guard definition.measure == .actors, definition.breakdown == nil, scope.report.filters.isEmpty,
            definition.events.allSatisfy({ $0.filters.isEmpty })
        else { return nil }
        if definition.events.allSatisfy({ $0.names.isEmpty }) { return NamesRead(names: nil) }
        guard definition.events.allSatisfy({ !$0.names.isEmpty }) else { return nil }
        return NamesRead(names: Set(definition.events.flatMap(\.names)))
    }

    /// The events to read for ``actorRecords``: of these names (nil: every name).
    package struct NamesRead: Sendable {
        package var names: Set<String>?
    }

    /// The index of a stored actor id (resolved when merging), for ``consumeRecord(name:time:actor:sampleRate:)``.
    package mutating func actorIndex(stored id: String) -> Int32 {
        guard let resolver = scope.resolver else { return actors.add(new: id) }
        return actors.index(resolver.resolve(id))
    }

    /// One event for ``actorRecords``: its name (nil: the selectors take every name), time, actor
    /// (from ``actorIndex(stored:)``) and sample rate.
    package mutating func consumeRecord(name: String?, time: Timestamp, actor: Int32?, sampleRate: Double?) {
        let current = !(time < scope.since) && time < scope.until
        let previous = definition.compare && !(time < previousSince) && time < scope.since
        guard current || previous else { return }
        if sampleRate != nil { sampled = true }
        let bucket = current ? boundaries.bucketIndex(of: time) : previousBoundaries.bucketIndex(of: time)
        for (index, selector) in definition.events.enumerated() where name.map(selector.names.contains) ?? true {
            if series[index][""] == nil { series[index][""] = newSeries() }
            series[index][""]!.add(current: current, bucket: bucket) { $0.add(actor: actor, sampleRate: sampleRate) }
        }
    }

    /// `events` unsampled events named `name`, of `feature`, in the UTC hour starting at `hour`.
    package mutating func consumeHourly(name: String, feature: String, hour: Timestamp, events: Int) {
        let current = !(hour < scope.since) && hour < scope.until
        let previous = definition.compare && !(hour < previousSince) && hour < scope.since
        guard current || previous else { return }
        let bucket = current ? boundaries.bucketIndex(of: hour) : previousBoundaries.bucketIndex(of: hour)
        let key: String
        switch definition.breakdown {
        case .name?: key = name
        case .feature?: key = feature
        default: key = ""
        }
        for (index, selector) in definition.events.enumerated()
        where selector.names.isEmpty || selector.names.contains(name) {
            if series[index][key] == nil { series[index][key] = newSeries() }
            series[index][key]!.add(current: current, bucket: bucket) { $0.add(events: events) }
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
