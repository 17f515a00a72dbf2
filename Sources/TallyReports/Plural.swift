/// Counts in English: "1 event", "9 event types".
public enum Plural {
    /// `count` followed by `singular`, or by `plural` (default: `singular` + "s") unless it is 1.
    public static func count(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(count) " + (count == 1 ? singular : plural ?? singular + "s")
    }
}
