/// Counts in English: "1 event", "9 event types".
package enum Plural {
    /// `count` followed by `singular`, or by `plural` (default: `singular` + "s") unless it is 1.
    package static func count(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(count) " + (count == 1 ? singular : plural ?? singular + "s")
    }
}
