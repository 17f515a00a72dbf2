import ArgumentParser
import Foundation
import TallyCore
import TallyOperations
import TallyReports
import TallySchema

/// What every `tally report` kind takes: the store, the range, the zone, filters, the format.
struct ReportOptions: ParsableArguments {
    @Option(name: .long, help: "From this instant on: RFC 3339, or a date (local midnight in --tz).")
    var since: String?

    @Option(name: .long, help: "Before this instant, in the same forms as --since.")
    var until: String?

    @Option(name: .long, help: "The last DURATION up to --until or now: 30d, 12h, 2w (default 30d).")
    var last: String?

    @Option(name: .customLong("tz"), help: "The IANA time zone of buckets, periods and dates.")
    var timeZone: String = "UTC"

    @Option(name: .customLong("where"), help: "A filter every event must match: 'FIELD OP VALUE' (repeatable).")
    var filters: [String] = []

    @Option(name: .long, help: "Only events of this feature.")
    var feature: String?

    @Flag(name: .customLong("no-merge"), help: "Count ids as sent: no identity merging.")
    var noMerge = false

    @Option(name: .long, help: "Tracking plans to check the report's events and properties against.")
    var registry: String?

    @OptionGroup var output: ReportOutputOptions

    /// The common part of a report with `body`.
    func report(_ body: Report.Body) throws -> Report {
        var report = Report(body)
        do throws(ReportError) {
            report.zone = try ReportZone(timeZone)
            report.range = try range()
            for text in filters { report.filters += try SelectorSyntax.filters(text) }
            if let feature { report.filters.append(try ReportFilter(field: .feature, op: .equals, values: [feature])) }
            report.mergeIdentities = !noMerge
            try report.validate()
        } catch {
            throw ValidationError(Self.message(error))
        }
        return report
    }

    static func message(_ error: ReportError) -> String {
        ReportReading.message(error)
    }

    private func range() throws(ReportError) -> ReportRange {
        var range = ReportRange()
        if let since {
            guard let end = ReportRange.parseEnd(since) else {
                throw ReportError(
                    .invalidValue,
                    path: "--since",
                    "\(since.debugDescription): RFC 3339 or a date (2026-11-01)"
                )
            }
            range.since = end
        }
        if let until {
            guard let end = ReportRange.parseEnd(until) else {
                throw ReportError(
                    .invalidValue,
                    path: "--until",
                    "\(until.debugDescription): RFC 3339 or a date (2026-11-01)"
                )
            }
            range.until = end
        }
        if let last {
            guard since == nil else {
                throw ReportError(.invalidValue, path: "--last", "give --since or --last, not both")
            }
            guard let duration = ReportRange.parseDuration(last) else {
                throw ReportError(
                    .invalidValue,
                    path: "--last",
                    "\(last.debugDescription): a duration such as 30d, 12h or 2w"
                )
            }
            range.last = duration
        }
        if range.since == nil, range.last == nil { range.last = ReportRange.lastThirtyDays.last }
        // An empty range is refused now, before any store is opened.
        _ = try range.resolve(in: try ReportZone(timeZone), now: .now())
        return range
    }

    /// Runs `report` on the chosen store and prints it; checks it against the plans first.
    func run(_ report: Report) async throws {
        if let registry {
            let plans = try RegistryOption.load(directory: registry)
            let findings = ReportPlanCheck.check(report, registry: plans)
            for finding in findings where !finding.isError { Terminal.error(finding.description) }
            if let error = findings.first(where: \.isError) { throw CommandFailure(.usage, error.message) }
        }
        FileHandle.standardOutput.write(Data(try await output.render(report).utf8))
    }
}

/// `tally report --format`.
enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json, csv
}

extension ReportInterval: ExpressibleByArgument {}
extension FunnelDefinition.Order: ExpressibleByArgument {}

/// Parses an option's selector text, naming the option in the error.
func selector(_ text: String, option: String) throws -> EventSelector {
    do throws(ReportError) {
        return try SelectorSyntax.selector(text)
    } catch {
        throw ValidationError("\(option) \(error.message)")
    }
}
