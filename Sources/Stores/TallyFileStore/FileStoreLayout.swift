package import TallyCore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where the file store keeps things under its data directory.
///
/// ```
/// tally-data/
///   events/events-2026-11-22.ndjson                  one file per UTC day of occurred_at
///   events/events-2026-11-22.1.ndjson                the next segment, once the first reached the size limit
///   identities/identities-2026-11-22.ndjson          identify, group and alias records, likewise
///   dead-letter/dead-letter-2026-11-22.ndjson        events a sink gave up on, by UTC day of failure
///   dead-letter/collector-rejects-2026-11-22.ndjson  events `tally serve` refused, by UTC day received
///   rejects/ingest-20261122T101500Z.ndjson           lines `tally ingest` rejected, one file per run
///   maintenance.lock                                 held by `tally compact` and `tally replay`
///   skewed-events.ndjson                             where events from the future were placed
/// ```
public struct FileStoreLayout: Sendable, Hashable {
    /// The data directory.
    public let root: String

    /// A layout rooted at `root`.
    public init(root: String) {
        self.root = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
    }

    /// The default data directory: `$TALLY_DATA_DIR`, else `./tally-data`.
    public static var defaultRoot: String {
        if let value = getenv("TALLY_DATA_DIR"), value[0] != 0 { return String(cString: value) }
        return "tally-data"
    }

    /// Holds the event files.
    public var eventsDirectory: String { root + "/events" }
    /// Holds the identity records (identify, group, alias), apart from events.
    public var identitiesDirectory: String { root + "/identities" }
    /// Holds the dead-letter files and the collector's rejects.
    public var deadLetterDirectory: String { root + "/dead-letter" }
    /// Where the store placed each event from the future (``SkewedEventIndex``).
    public var skewedEventsFile: String { root + "/skewed-events.ndjson" }
    /// Holds the rejects files of `tally ingest` (unless it was given `--rejects`).
    package var rejectsDirectory: String { root + "/rejects" }
    /// The lock `tally compact` and `tally replay` hold while they rewrite files (``MaintenanceLock``).
    package var maintenanceLockFile: String { root + "/maintenance.lock" }

    /// The path of segment `segment` of `day`'s event file.
    package func eventFile(day: CivilDate, segment: Int) -> String {
        eventsDirectory + "/" + Self.fileName(prefix: "events", day: day, segment: segment)
    }

    /// The path of segment `segment` of `day`'s identities file.
    package func identityFile(day: CivilDate, segment: Int) -> String {
        identitiesDirectory + "/" + Self.fileName(prefix: "identities", day: day, segment: segment)
    }

    /// The path of `day`'s dead-letter file.
    package func deadLetterFile(day: CivilDate) -> String {
        deadLetterDirectory + "/" + Self.fileName(prefix: "dead-letter", day: day, segment: 0)
    }

    /// The path of `day`'s file of events the collector refused.
    package func collectorRejectsFile(day: CivilDate) -> String {
        deadLetterDirectory + "/" + Self.fileName(prefix: "collector-rejects", day: day, segment: 0)
    }

    static func fileName(prefix: String, day: CivilDate, segment: Int) -> String {
        segment == 0 ? "\(prefix)-\(day.isoString).ndjson" : "\(prefix)-\(day.isoString).\(segment).ndjson"
    }

    /// One event file found on disk.
    package struct Segment: Sendable, Hashable, Comparable {
        /// The UTC day its events occurred on.
        package var day: CivilDate
        /// 0 for the first file of the day.
        package var number: Int
        /// Its path.
        package var path: String

        package static func < (lhs: Segment, rhs: Segment) -> Bool {
            (lhs.day.daysSinceEpoch, lhs.number) < (rhs.day.daysSinceEpoch, rhs.number)
        }
    }

    /// The event files on disk, oldest day first, segments in order. Other files are ignored.
    package func eventSegments() throws(IOError) -> [Segment] {
        try Self.listDirectory(eventsDirectory).compactMap { name in
            Self.parseSegment(name: name, prefix: "events").map {
                Segment(day: $0.day, number: $0.number, path: eventsDirectory + "/" + name)
            }
        }.sorted()
    }

    /// The identity files on disk, oldest day first (none when the directory does not exist).
    package func identitySegments() throws(IOError) -> [Segment] {
        guard Self.isDirectory(identitiesDirectory) else { return [] }
        return try Self.listDirectory(identitiesDirectory).compactMap { name in
            Self.parseSegment(name: name, prefix: "identities").map {
                Segment(day: $0.day, number: $0.number, path: identitiesDirectory + "/" + name)
            }
        }.sorted()
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Parses `events-YYYY-MM-DD[.N].ndjson`.
    static func parseSegment(name: String, prefix: String) -> (day: CivilDate, number: Int)? {
        guard name.hasPrefix(prefix + "-"), name.hasSuffix(".ndjson") else { return nil }
        let middle = name.dropFirst(prefix.count + 1).dropLast(".ndjson".count)
        let parts = middle.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2 else { return nil }
        let dateParts = parts[0].split(separator: "-")
        guard dateParts.count == 3, let year = Int64(dateParts[0]), let month = Int64(dateParts[1]),
            let day = Int64(dateParts[2])
        else { return nil }
        let date = CivilDate(year: year, month: month, day: day)
        guard date.isValid, date.isoString == parts[0] else { return nil }
        if parts.count == 1 { return (date, 0) }
        guard let number = Int(parts[1]), number > 0, String(number) == parts[1] else { return nil }
        return (date, number)
    }

    /// The names in `path`; an empty list when it does not exist.
    static func listDirectory(_ path: String) throws(IOError) -> [String] {
        guard let directory = opendir(path) else {
            if errno == ENOENT { return [] }
            throw IOError(.opendir, path: path, errno: errno)
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
