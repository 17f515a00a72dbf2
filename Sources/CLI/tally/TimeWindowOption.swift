import ArgumentParser
import TallyCore
import TallyReports

/// `--since`, `--until` and `--last`: a window of `occurred_at`, shared by `tally summary` and `tally status`.
struct TimeWindowOption: ParsableArguments {
    // `.unconditional`: "-1d" is this option's (wrong) value, answered as such, not a missing one.
    @Option(
        name: .long,
        parsing: .unconditional,
        help: "From this time on: RFC 3339, a date (2026-11-22), or a duration ago (90m, 36h, 7d, 2w)."
    )
    var since: String?

    @Option(
        name: .long,
        parsing: .unconditional,
        help: "Before this time, in the same forms as --since; must be after --since."
    )
    var until: String?

    @Option(name: .long, parsing: .unconditional, help: "The last DURATION up to now (7d, 24h, 90m): --since DURATION.")
    var last: String?

    func validate() throws {
        if last != nil, since != nil { throw ValidationError("--last and --since both set the start: give one.") }
        if let last,
            SummaryQuery.parseTime(last) == nil || !"smhdw".contains(last.last ?? " ")
                || Int64(last.dropLast()) == 0
        {
            throw ValidationError(
                "--last \(last.debugDescription): give a duration above zero and within 292 years, such as 7d, 24h or 90m."
            )
        }
        _ = try bounds(now: .now())
    }

    /// The window's start and end (nil: open), relative times counted back from `now`.
    func bounds(now: Timestamp) throws -> (since: Timestamp?, until: Timestamp?) {
        let start = since ?? last
        var times: (since: Timestamp?, until: Timestamp?) = (nil, nil)
        for (flag, value) in [("--since", start), ("--until", until)] {
            guard let value else { continue }
            guard let time = SummaryQuery.parseTime(value, now: now) else {
                throw ValidationError(
                    "\(flag) \(value.debugDescription): use RFC 3339, a date like 2026-11-22, "
                        + "or a duration ago within 292 years (7d / 36h / 90m)."
                )
            }
            if flag == "--since" { times.since = time } else { times.until = time }
        }
        if let from = times.since, let to = times.until, let start, let until, !(from < to) {
            throw ValidationError(
                "--until \(until) (\(to.rfc3339)) is not after --since \(start) (\(from.rfc3339)): "
                    + "nothing could match; swap them?"
            )
        }
        return times
    }
}
