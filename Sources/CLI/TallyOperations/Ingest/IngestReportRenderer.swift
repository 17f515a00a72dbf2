import Foundation
import TallyCore
import TallyPipeline
import TallyReports
import TallySchema

/// The final report of `tally ingest`, for people and for scripts.
package enum IngestReportRenderer {
    package static func text(_ report: IngestReport, sinks: [String]) -> String {
        var lines: [String] = []
        lines.append(
            "read \(Plural.count(report.lines, "line")) from \(Plural.count(report.sources.count, "input")): "
                + "\(report.accepted) accepted, \(report.rejectedCount) rejected, \(report.blankLines) blank"
                + "  (validation: \(report.validation == "registry" ? "tracking plans" : "structural only, no --registry"))"
        )
        if !report.rejected.isEmpty {
            let reasons = report.rejected.sorted { $0.value == $1.value ? $0.key < $1.key : $0.value > $1.value }
                .map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", ")
            lines.append("  rejected by reason: \(reasons)")
        }
        if !report.firstRejects.isEmpty {
            let more = report.rejectedCount - report.firstRejects.count
            lines.append(
                report.rejectedCount == report.firstRejects.count
                    ? "  rejected lines:" : "  first rejected lines (\(more) more in the rejects file):"
            )
            lines += report.firstRejects.map { "    \($0)" }
        }
        if let file = report.rejectsFile { lines.append("  rejected lines written to \(file)") }
        if report.futurePlaced > 0 {
            lines.append(
                "  placed at receipt: \(Plural.count(report.futurePlaced, "event")) from the future (more than a day "
                    + "after received_at; the device's time kept as device_occurred_at)"
            )
        }
        let stored = sinks.map { "\($0) \(report.stored[$0, default: 0])" }.joined(separator: ", ")
        lines.append(
            "  stored: \(stored)"
                + (report.notStored > 0 ? "; NOT stored: \(report.notStored) (see the dead-letter files)" : "")
        )
        lines.append(
            String(
                format: "  %.2f s, %.0f events/s, %.1f MB/s",
                report.elapsedSeconds,
                report.eventsPerSecond,
                report.megabytesPerSecond
            )
        )
        if let database = report.database {
            lines.append(
                "  postgres: \(database.inserted) new"
                    + (database.identitiesInserted > 0
                        ? " events, \(Plural.count(database.identitiesInserted, "new identity record"))" : "")
                    + ", \(database.duplicates) duplicates skipped"
                    + (database.failed > 0 ? ", \(database.failed) refused (in tally.failed_events)" : "")
            )
        }
        if let stop = report.stoppedAt {
            lines.append("  stopped at \(stop.place), over --max-rejects: nothing after it was read")
        }
        if report.interrupted { lines.append("  stopped early: run the same command again to finish (ids are stable)") }
        return lines.joined(separator: "\n") + "\n"
    }

    package static func json(_ report: IngestReport) -> String {
        var object: [JSONMember] = [
            JSONMember(key: "inputs", value: .array(report.sources.map(JSONValue.string))),
            JSONMember(key: "lines", value: number(report.lines)),
            JSONMember(key: "accepted", value: number(report.accepted)),
            JSONMember(key: "rejected", value: number(report.rejectedCount)),
            JSONMember(key: "blank", value: number(report.blankLines)),
            JSONMember(
                key: "rejected_by_reason",
                value: .object(
                    report.rejected.sorted { $0.key < $1.key }.map {
                        JSONMember(key: $0.key.rawValue, value: number($0.value))
                    }
                )
            ),
            JSONMember(key: "validation", value: .string(report.validation)),
            JSONMember(key: "future_placed", value: number(report.futurePlaced)),
            JSONMember(
                key: "stored",
                value: .object(
                    report.stored.sorted { $0.key < $1.key }.map {
                        JSONMember(key: $0.key, value: number(Int($0.value)))
                    }
                )
            ),
            JSONMember(key: "not_stored", value: number(Int(report.notStored))),
            JSONMember(key: "interrupted", value: .bool(report.interrupted)),
            JSONMember(key: "reject_limit_reached", value: .bool(report.rejectLimitReached)),
            JSONMember(key: "first_rejects", value: .array(report.firstRejects.map(rejectedLine))),
            JSONMember(key: "warnings", value: .array(report.warnings.map(JSONValue.string))),
            JSONMember(key: "bytes", value: number(report.bytes)),
            JSONMember(
                key: "elapsed_seconds",
                value: .number(JSONNumber(text: String(format: "%.3f", report.elapsedSeconds)))
            ),
            JSONMember(key: "events_per_second", value: number(Int(report.eventsPerSecond))),
        ]
        if let file = report.rejectsFile { object.append(JSONMember(key: "rejects_file", value: .string(file))) }
        if let database = report.database {
            object.append(JSONMember(key: "postgres_inserted", value: number(database.inserted)))
            object.append(
                JSONMember(key: "postgres_identities_inserted", value: number(database.identitiesInserted))
            )
            object.append(JSONMember(key: "duplicates_skipped", value: number(database.duplicates)))
            object.append(JSONMember(key: "postgres_failed", value: number(database.failed)))
        }
        if let peak = ProcessMemory.peakResidentBytes() {
            object.append(JSONMember(key: "peak_rss_bytes", value: number(peak)))
        }
        return JSONWriter.text(.object(object)) + "\n"
    }

    private static func rejectedLine(_ rejected: Reject) -> JSONValue {
        let (source, line) = if case .line(let file, let line) = rejected.origin { (file, line) } else { ("", 0) }
        return .object([
            JSONMember(key: "source", value: .string(source)),
            JSONMember(key: "line", value: number(line)),
            JSONMember(key: "reason", value: .string(rejected.reason.code)),
            JSONMember(key: "path", value: .string(rejected.reason.path ?? "$")),
            JSONMember(key: "message", value: .string(rejected.reason.message)),
        ])
    }

    private static func number(_ value: Int) -> JSONValue { .number(JSONNumber(text: String(value))) }
}
