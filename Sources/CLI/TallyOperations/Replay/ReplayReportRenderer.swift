import Foundation
import TallyCore
import TallyPipeline
package import TallyPostgres
import TallyReports
import TallySchema

/// The report of `tally replay`, for people and for scripts.
package enum ReplayReportRenderer {
    package static func text(_ report: ReplayReport, sink: String, plans: Bool) -> String {
        var lines: [String] = []
        lines.append(
            (report.dryRun ? "dry run, nothing changed: " : "")
                + "replayed \(Plural.count(report.files.count, "file")) into the "
                + (sink == "file" ? "file store" : "database") + validation(plans)
        )
        for file in report.files {
            var line = "  \(file.path): \(Plural.count(file.lines, "line")), \(file.replayed) replayed"
            if file.replayed > 0 {
                line += " (\(Plural.count(file.events, "event")), \(file.alreadyStored) already stored)"
            }
            if file.stillFailingCount > 0 {
                line += ", \(file.stillFailingCount) still failing (" + reasons(file.stillFailing) + ")"
            }
            if file.withoutEvent > 0 { line += ", \(file.withoutEvent) without an event" }
            if file.unrecognized > 0 { line += ", \(file.unrecognized) not dead-letter or rejects lines" }
            if file.appendedMeanwhile > 0 { line += ", \(file.appendedMeanwhile) appended meanwhile (next run)" }
            switch file.outcome {
            case .rewritten: line += ": rewritten with the \(Plural.count(file.remaining, "line")) that remain"
            case .removed: line += ": removed, nothing remains"
            case .notFinished: line += ": NOT finished, left as it was"
            case .untouched: line += report.dryRun || file.replayed == 0 ? ": left as it is" : ""
            }
            lines.append(line)
        }
        let failing = report.files.flatMap(\.firstStillFailing)
        if !failing.isEmpty {
            lines.append("  still failing (kept with their reason):")
            lines += failing.prefix(IngestReport.firstRejectsLimit).map { "    \($0)" }
        }
        lines.append(
            "  stored: \(Plural.count(report.eventsStored, "event"))"
                + "; \(Plural.count(report.stillFailing, "line")) still failing"
                + String(format: "  (%.2f s)", report.elapsedSeconds)
        )
        if report.interrupted { lines.append("  stopped early: run the same command again to finish") }
        return lines.joined(separator: "\n") + "\n"
    }

    package static func json(_ report: ReplayReport, sink: String, plans: Bool) -> String {
        let files: [JSONValue] = report.files.map { file in
            .object([
                JSONMember(key: "file", value: .string(file.path)),
                JSONMember(key: "lines", value: number(file.lines)),
                JSONMember(key: "replayed", value: number(file.replayed)),
                JSONMember(key: "events", value: number(file.events)),
                JSONMember(key: "already_stored", value: number(file.alreadyStored)),
                JSONMember(
                    key: "still_failing",
                    value: .object(
                        file.stillFailing.sorted { $0.key < $1.key }.map {
                            JSONMember(key: $0.key.rawValue, value: number($0.value))
                        }
                    )
                ),
                JSONMember(key: "without_event", value: number(file.withoutEvent)),
                JSONMember(key: "unrecognized", value: number(file.unrecognized)),
                JSONMember(key: "appended_meanwhile", value: number(file.appendedMeanwhile)),
                JSONMember(key: "remaining", value: number(file.remaining)),
                JSONMember(key: "outcome", value: .string(file.outcome.rawValue)),
                JSONMember(
                    key: "first_still_failing",
                    value: .array(
                        file.firstStillFailing.map { reject in
                            let line = if case .line(_, let line) = reject.origin { line } else { 0 }
                            return .object([
                                JSONMember(key: "line", value: number(line)),
                                JSONMember(key: "reason", value: .string(reject.reason.code)),
                                JSONMember(key: "path", value: .string(reject.reason.path ?? "$")),
                                JSONMember(key: "message", value: .string(reject.reason.message)),
                            ])
                        }
                    )
                ),
            ])
        }
        let object: [JSONMember] = [
            JSONMember(key: "sink", value: .string(sink)),
            JSONMember(key: "validation", value: .string(plans ? "registry" : "structural")),
            JSONMember(key: "dry_run", value: .bool(report.dryRun)),
            JSONMember(key: "files", value: .array(files)),
            JSONMember(key: "replayed", value: number(report.replayed)),
            JSONMember(key: "events_stored", value: number(report.eventsStored)),
            JSONMember(key: "still_failing", value: number(report.stillFailing)),
            JSONMember(key: "interrupted", value: .bool(report.interrupted)),
            JSONMember(
                key: "elapsed_seconds",
                value: .number(JSONNumber(text: String(format: "%.3f", report.elapsedSeconds)))
            ),
        ]
        return JSONWriter.text(.object(object)) + "\n"
    }

    package static func text(_ report: FailedEventsReplayer.Report, plans: Bool) -> String {
        var lines: [String] = []
        lines.append(
            (report.dryRun ? "dry run, nothing changed: " : "")
                + "replayed tally.failed_events: \(Plural.count(report.rows, "row")) read, "
                + "\(report.replayedRows) replayed" + validation(plans)
        )
        lines.append(
            "  events: \(report.inserted) stored, \(report.duplicates) already stored"
                + (report.refused > 0 ? ", \(report.refused) refused again by PostgreSQL (kept with its reason)" : "")
        )
        let failing = report.stillFailing.values.reduce(0, +)
        if failing > 0 {
            lines.append(
                "  still failing, kept with their reason: \(failing) ("
                    + report.stillFailing.sorted { $0.value == $1.value ? $0.key < $1.key : $0.value > $1.value }
                    .map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")"
            )
        }
        if report.kept > 0 { lines.append("  kept as they are: \(report.kept) without an event") }
        if report.interrupted { lines.append("  stopped early: run the same command again to finish") }
        return lines.joined(separator: "\n") + "\n"
    }

    package static func json(_ report: FailedEventsReplayer.Report, plans: Bool) -> String {
        let object: [JSONMember] = [
            JSONMember(key: "table", value: .string("tally.failed_events")),
            JSONMember(key: "validation", value: .string(plans ? "registry" : "structural")),
            JSONMember(key: "rows", value: number(report.rows)),
            JSONMember(key: "replayed_rows", value: number(report.replayedRows)),
            JSONMember(key: "inserted", value: number(report.inserted)),
            JSONMember(key: "duplicates", value: number(report.duplicates)),
            JSONMember(key: "refused", value: number(report.refused)),
            JSONMember(
                key: "still_failing",
                value: .object(
                    report.stillFailing.sorted { $0.key < $1.key }.map {
                        JSONMember(key: $0.key, value: number($0.value))
                    }
                )
            ),
            JSONMember(key: "without_event", value: number(report.kept)),
            JSONMember(key: "interrupted", value: .bool(report.interrupted)),
        ]
        return JSONWriter.text(.object(object)) + "\n"
    }

    private static func validation(_ plans: Bool) -> String {
        "  (validation: \(plans ? "tracking plans" : "structural only, no --registry"))"
    }

    private static func reasons(_ counts: [ReasonCode: Int]) -> String {
        counts.sorted { $0.value == $1.value ? $0.key < $1.key : $0.value > $1.value }
            .map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", ")
    }

    private static func number(_ value: Int) -> JSONValue { .number(JSONNumber(text: String(value))) }
}
