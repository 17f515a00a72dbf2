import Foundation

/// A URL's query as a form sends it: `name=value` pairs joined by `&`, `+` for a space,
/// percent-encoded bytes (Hummingbird leaves `+` as it is, which a browser's GET form uses).
enum QueryString {
    /// The pairs in order; nil when an escape is broken or a name is not UTF-8.
    static func parse(_ query: String?) -> [(String, String)]? {
        guard let query, !query.isEmpty else { return [] }
        var pairs: [(String, String)] = []
        for part in query.split(separator: "&", omittingEmptySubsequences: true) {
            let sides = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(sides[0]), let value = decode(sides.count > 1 ? sides[1] : "") else { return nil }
            pairs.append((name, value))
        }
        return pairs
    }

    private static func decode(_ text: Substring) -> String? {
        String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    /// The pairs by name, values in order.
    static func values(_ pairs: [(String, String)]) -> [String: [String]] {
        var values: [String: [String]] = [:]
        for (name, value) in pairs { values[name, default: []].append(value) }
        return values
    }
}
