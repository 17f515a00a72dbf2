/// Values as ClickHouse SQL literals, for the few statements whose values cannot travel as
/// RowBinary (lists of names, filters): single-quoted, with backslashes and quotes escaped.
package enum ClickHouseSQL {
    /// `'it\'s'`.
    package static func string(_ value: String) -> String {
        var result = "'"
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "'": result += "\\'"
            case "\0": result += "\\0"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "'"
    }

    /// `column IN ('a', 'b')`, or `0` (false) for no values.
    package static func isIn(_ column: String, _ values: [String]) -> String {
        values.isEmpty ? "0" : column + " IN (" + values.map(string).joined(separator: ", ") + ")"
    }
}
