import Foundation
import TallyCore
package import TallyFileStore
import TallyReports

/// The report of `tally compact`, for people and for scripts.
package enum CompactReportRenderer {
    /// At most this many torn or unreadable lines are listed in the text report (JSON has them all).
    package static let listed = 10

    package static func text(
        _ report: CompactionReport,
        directory: String,
        options: FileStoreCompactor.Options,
        retain: String?,
        retainFailed: String?
    ) -> String {
        var lines: [String] = []
        lines.append(
            (report.dryRun ? "dry run, nothing changed: " : "")
                + "compacted \(directory): \(Plural.count(report.days, "day")) read "
                + "(\(Plural.count(report.filesRead, "file")), \(megabytes(report.bytesBefore))), "
                + Plural.count(report.filesRewritten.count, "file") + (report.dryRun ? " would be" : "") + " rewritten"
                + (report.filesRewritten.isEmpty
                    ? "" : " (\(megabytes(report.bytesBefore)) → \(megabytes(report.bytesAfter)))")
        )
        if report.days == 0 { lines[0] += "; every day file is as the last compaction left it" }
        lines.append(
            "  removed: \(Plural.count(report.duplicatesRemoved, "duplicate copy", "duplicate copies")), "
                + Plural.count(report.tornLines.count, "torn line")
        )
        for torn in report.tornLines.prefix(listed) {
            lines.append("    \(torn.path):\(torn.line): torn line (\(Plural.count(torn.bytes, "byte"))), removed")
        }
        if report.tornLines.count > listed {
            lines.append("    … \(report.tornLines.count - listed) more (--report json)")
        }
        if !report.unreadableKept.isEmpty {
            lines.append(
                "  kept \(Plural.count(report.unreadableKept.count, "unreadable line")) (whole JSON, not an event):"
            )
            for line in report.unreadableKept.prefix(listed) {
                lines.append("    \(line.path):\(line.line): \(line.reason)")
            }
        }
        for skipped in report.skipped { lines.append("  left as it was: \(skipped.path): \(skipped.reason)") }
        for (option, text, seconds) in [
            ("--retain", retain, options.retainSeconds), ("--retain-failed", retainFailed, options.retainFailedSeconds),
        ] {
            guard let text, let seconds else { continue }
            let first = FileStoreCompactor.firstKeptDay(seconds: seconds, now: options.now)
            let deleted = report.expiredFiles.filter { isFailedFile($0) == (option == "--retain-failed") }
            lines.append(
                "  \(option) \(text): days before \(first.isoString) \(report.dryRun ? "would be" : "are") deleted: "
                    + Plural.count(deleted.count, "file")
            )
            lines += deleted.prefix(listed).map { "    \($0)" }
            if deleted.count > listed { lines.append("    … \(deleted.count - listed) more (--report json)") }
        }
        if report.abandonedTemporaryFiles > 0 {
            lines.append(
                "  \(Plural.count(report.abandonedTemporaryFiles, "temporary file")) of an interrupted rewrite removed"
            )
        }
        return lines.joined(separator: "\n") + "\n"
    }

    package static func json(_ report: CompactionReport, directory: String) -> String {
        let object: [JSONMember] = [
            JSONMember(key: "data_dir", value: .string(directory)),
            JSONMember(key: "dry_run", value: .bool(report.dryRun)),
            JSONMember(key: "days", value: number(report.days)),
            JSONMember(key: "files_read", value: number(report.filesRead)),
            JSONMember(key: "files_rewritten", value: .array(report.filesRewritten.map(JSONValue.string))),
            JSONMember(key: "lines_kept", value: number(report.linesKept)),
            JSONMember(key: "duplicates_removed", value: number(report.duplicatesRemoved)),
            JSONMember(
                key: "torn_lines",
                value: .array(
                    report.tornLines.map {
                        .object([
                            JSONMember(key: "file", value: .string($0.path)),
                            JSONMember(key: "line", value: number($0.line)),
                            JSONMember(key: "bytes", value: number($0.bytes)),
                        ])
                    }
                )
            ),
            JSONMember(
                key: "unreadable_kept",
                value: .array(
                    report.unreadableKept.map {
                        .object([
                            JSONMember(key: "file", value: .string($0.path)),
                            JSONMember(key: "line", value: number($0.line)),
                            JSONMember(key: "reason", value: .string($0.reason)),
                        ])
                    }
                )
            ),
            JSONMember(key: "bytes_before", value: number(report.bytesBefore)),
            JSONMember(key: "bytes_after", value: number(report.bytesAfter)),
            JSONMember(key: "expired_files", value: .array(report.expiredFiles.map(JSONValue.string))),
            JSONMember(
                key: "skipped",
                value: .array(
                    report.skipped.map {
                        .object([
                            JSONMember(key: "file", value: .string($0.path)),
                            JSONMember(key: "reason", value: .string($0.reason)),
                        ])
                    }
                )
            ),
            JSONMember(key: "temporary_files_removed", value: number(report.abandonedTemporaryFiles)),
        ]
        return JSONWriter.text(.object(object)) + "\n"
    }

    private static func isFailedFile(_ path: String) -> Bool {
        path.contains("/dead-letter/") || path.contains("/rejects/")
    }

    private static func megabytes(_ bytes: Int) -> String {
        String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }

    private static func number(_ value: Int) -> JSONValue { .number(JSONNumber(text: String(value))) }
}
