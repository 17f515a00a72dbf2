import ArgumentParser

/// The range of the demo's options in seconds: a millisecond (less becomes a zero `Duration`) to
/// a year (more overflows the conversion to `Duration` and traps).
enum SecondsOption {
    static let range = 0.001...31_536_000.0

    /// Throws the usage error for `option` when `seconds` is outside ``range`` (0 allowed with
    /// `zeroAllowed`: "do not wait").
    static func check(_ option: String, _ seconds: Double, zeroAllowed: Bool = false) throws {
        if zeroAllowed && seconds == 0 || range.contains(seconds) { return }
        throw ValidationError(
            "\(option) \(seconds): give seconds from \(zeroAllowed ? "0" : "0.001") to 31536000 (a year)."
        )
    }
}
