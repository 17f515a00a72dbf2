/// Swift's `Regex` for the patterns ``PatternProgram`` does not handle.
struct FallbackRegex: @unchecked Sendable {
    // Regex<AnyRegexOutput> is not Sendable; it is immutable after construction and only read.
    private let regex: Regex<AnyRegexOutput>

    init?(_ source: String) {
        guard let regex = try? Regex(source) else { return nil }
        self.regex = regex
    }

    func matches(_ string: String) -> Bool {
        (try? regex.firstMatch(in: string)) != nil
    }
}
