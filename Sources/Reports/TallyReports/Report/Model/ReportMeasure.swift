/// What a trend counts in each bucket (docs/reports.md, Trends).
package enum ReportMeasure: Sendable, Hashable, CustomStringConvertible {
    case count
    case actors
    case sum(String)
    case average(String)
    case minimum(String)
    case maximum(String)
    case median(String)
    case percentile90(String)

    /// `count`, `actors`, or `sum:P`, `avg:P`, `min:P`, `max:P`, `median:P`, `p90:P`.
    package init(_ text: String) throws(ReportError) {
        switch text {
        case "count": self = .count
        case "actors": self = .actors
        default:
            let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[1].isEmpty else {
                throw ReportError(
                    .invalidValue,
                    path: "",
                    "unknown measure \(text.debugDescription): count, actors, or sum|avg|min|max|median|p90:PROPERTY"
                )
            }
            let property = parts[1].hasPrefix("properties.") ? String(parts[1].dropFirst(11)) : parts[1]
            switch parts[0] {
            case "sum": self = .sum(property)
            case "avg": self = .average(property)
            case "min": self = .minimum(property)
            case "max": self = .maximum(property)
            case "median": self = .median(property)
            case "p90": self = .percentile90(property)
            default:
                throw ReportError(
                    .invalidValue,
                    path: "",
                    "unknown measure \(parts[0].debugDescription): sum, avg, min, max, median or p90 of a property"
                )
            }
        }
    }

    /// The numeric property it reads, if any.
    package var property: String? {
        switch self {
        case .count, .actors: nil
        case .sum(let p), .average(let p), .minimum(let p), .maximum(let p), .median(let p), .percentile90(let p): p
        }
    }

    package var description: String {
        switch self {
        case .count: "count"
        case .actors: "actors"
        case .sum(let p): "sum:" + p
        case .average(let p): "avg:" + p
        case .minimum(let p): "min:" + p
        case .maximum(let p): "max:" + p
        case .median(let p): "median:" + p
        case .percentile90(let p): "p90:" + p
        }
    }
}
