import ArgumentParser

/// A retention bound: `36h`, `90d`, `12w`.
enum RetentionDuration {
    /// The seconds in `text` (given to `option`), or a usage error saying what is wrong with it.
    static func seconds(_ text: String, option: String) throws -> Int64 {
        let units: [Character: Int64] = ["h": 3_600, "d": 86_400, "w": 604_800]
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        let unit = text.dropFirst(digits.count)
        let example = "such as 90d, 12w or 36h"
        guard !digits.isEmpty else {
            throw ValidationError("\(option) \(text.debugDescription): give a number and a unit, \(example).")
        }
        guard let count = Int64(digits), count > 0 else {
            throw ValidationError("\(option) \(text.debugDescription): give a duration above zero, \(example).")
        }
        guard let letter = unit.first, unit.count == 1, let scale = units[letter] else {
            throw ValidationError(
                "\(option) \(text.debugDescription): "
                    + (unit.isEmpty ? "no unit" : "unknown unit \(String(unit).debugDescription)")
                    + "; use h (hours), d (days) or w (weeks), \(example)."
            )
        }
        let (seconds, overflow) = count.multipliedReportingOverflow(by: scale)
        guard !overflow, seconds < 292 * 365 * 86_400 else {
            throw ValidationError("\(option) \(text.debugDescription): give a duration within 292 years.")
        }
        return seconds
    }
}
