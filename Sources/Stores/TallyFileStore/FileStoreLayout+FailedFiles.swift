package import TallyCore

extension FileStoreLayout {
    /// A file of events that were not stored: a dead-letter file, the collector's rejects of a day,
    /// or the rejects file of one `tally ingest` run.
    package struct FailedFile: Sendable, Hashable, Comparable {
        /// Which of them.
        package enum Kind: String, Sendable {
            /// `dead-letter/dead-letter-DAY.ndjson`: events a sink gave up on.
            case deadLetter = "dead-letter"
            /// `dead-letter/collector-rejects-DAY.ndjson`: events `tally serve` refused.
            case collectorRejects = "collector-rejects"
            /// `rejects/ingest-TIME.ndjson`: lines `tally ingest` rejected.
            case ingestRejects = "ingest-rejects"
        }

        /// Which kind of file.
        package var kind: Kind
        /// The UTC day in its name: of the failure, of receipt, of the ingest run.
        package var day: CivilDate
        /// Its path.
        package var path: String

        package static func < (lhs: FailedFile, rhs: FailedFile) -> Bool {
            (lhs.day.daysSinceEpoch, lhs.path) < (rhs.day.daysSinceEpoch, rhs.path)
        }
    }

    /// The dead-letter and rejects files under the data directory, oldest day first. Other files
    /// (and unfinished rewrites) are left out.
    package func failedFiles() throws(IOError) -> [FailedFile] {
        var files: [FailedFile] = []
        for name in try Self.listDirectory(deadLetterDirectory) {
            if let (day, _) = Self.parseSegment(name: name, prefix: "dead-letter") {
                files.append(FailedFile(kind: .deadLetter, day: day, path: deadLetterDirectory + "/" + name))
            } else if let (day, _) = Self.parseSegment(name: name, prefix: "collector-rejects") {
                files.append(FailedFile(kind: .collectorRejects, day: day, path: deadLetterDirectory + "/" + name))
            }
        }
        for name in try Self.listDirectory(rejectsDirectory) {
            if let day = Self.parseIngestRejectsDay(name) {
                files.append(FailedFile(kind: .ingestRejects, day: day, path: rejectsDirectory + "/" + name))
            }
        }
        return files.sorted()
    }

    /// The day of `ingest-20261122T101500Z.ndjson` (a run's start, UTC).
    static func parseIngestRejectsDay(_ name: String) -> CivilDate? {
        guard name.hasPrefix("ingest-"), name.hasSuffix(".ndjson") else { return nil }
        let stamp = Array(name.dropFirst("ingest-".count).dropLast(".ndjson".count).utf8)
        guard stamp.count >= 16, stamp[8] == UInt8(ascii: "T"),
            stamp[0..<8].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        let digits = stamp[0..<8].map { Int64($0 - UInt8(ascii: "0")) }
        let date = CivilDate(
            year: digits[0..<4].reduce(0) { $0 * 10 + $1 },
            month: digits[4] * 10 + digits[5],
            day: digits[6] * 10 + digits[7]
        )
        return date.isValid ? date : nil
    }
}
