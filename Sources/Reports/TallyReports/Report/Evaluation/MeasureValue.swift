/// One number of a report: a count, or an exact decimal, or nothing (a decimal measure over no
/// values).
package enum MeasureValue: Sendable, Hashable {
    case count(Int)
    case decimal(ExactDecimal)
    case none

    /// The JSON text: an integer, a decimal in plain notation, or `null`.
    package var jsonText: String {
        switch self {
        case .count(let count): String(count)
        case .decimal(let decimal): decimal.description
        case .none: "null"
        }
    }

    /// For ordering breakdown values: counts and decimals compared as numbers, nothing least.
    package static func isLess(_ lhs: MeasureValue, _ rhs: MeasureValue) -> Bool {
        switch (lhs, rhs) {
        case (.none, .none): false
        case (.none, _): true
        case (_, .none): false
        default: lhs.decimal < rhs.decimal
        }
    }

    private var decimal: ExactDecimal {
        switch self {
        case .count(let count): ExactDecimal(count)
        case .decimal(let decimal): decimal
        case .none: .zero
        }
    }
}
