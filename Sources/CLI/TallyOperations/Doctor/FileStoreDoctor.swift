import Foundation
package import TallyCore
package import TallyFileStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `tally doctor`'s checks of the file store: the directory and its free space (failures: the
/// store cannot take events), then what is worth a look (warnings): torn last lines, days in the
/// future, files the store does not write, dead letters and rejects waiting for a replay.
package struct FileStoreDoctor: Sendable {
    /// The store.
    package let layout: FileStoreLayout

    package init(directory: String) {
        layout = FileStoreLayout(root: directory)
    }

    /// Free space below either share or size fails; below the warning ones, warns.
    package static let failBelow = (share: 0.01, bytes: Int64(64 << 20))
    package static let warnBelow = (share: 0.05, bytes: Int64(1 << 30))

    /// Runs every check. `now` decides which days are in the future.
    package func checks(now: Timestamp = .now()) -> [DoctorCheck] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: layout.root, isDirectory: &isDirectory) else {
            return [
                DoctorCheck(
                    "store",
                    .failure,
                    "no file store at \(layout.root)",
                    advice: "`tally ingest FILE` or `tally serve` creates it; pass --data-dir DIR for another one"
                )
            ]
        }
        guard isDirectory.boolValue else {
            return [DoctorCheck("store", .failure, "\(layout.root) is not a directory", advice: "pass --data-dir DIR")]
        }
        var checks = [writable(), diskSpace()]
        checks.append(contentsOf: eventFiles(now: now))
        checks.append(waiting("dead letters", directory: layout.deadLetterDirectory, prefix: "dead-letter-"))
        checks.append(waiting("collector rejects", directory: layout.deadLetterDirectory, prefix: "collector-rejects-"))
        checks.append(waiting("ingest rejects", directory: layout.root + "/rejects", prefix: ""))
        return checks
    }

    private func writable() -> DoctorCheck {
        let directories = [layout.root, layout.eventsDirectory, layout.identitiesDirectory, layout.deadLetterDirectory]
            .filter { FileManager.default.fileExists(atPath: $0) }
        let readOnly = directories.filter { access($0, W_OK) != 0 }
        guard readOnly.isEmpty else {
            return DoctorCheck(
                "writable",
                .failure,
                "cannot write \(readOnly.joined(separator: ", "))",
                advice: "give the user that runs tally write access (deploy/systemd runs it as `tally`)"
            )
        }
        return DoctorCheck("writable", .ok, layout.root)
    }

    private func diskSpace() -> DoctorCheck {
        var info = statvfs()
        guard statvfs(layout.root, &info) == 0 else {
            return DoctorCheck("disk space", .warning, "cannot read: \(String(cString: strerror(errno)))")
        }
        let total = Int64(info.f_blocks) * Int64(info.f_frsize)
        let free = Int64(info.f_bavail) * Int64(info.f_frsize)
        let share = total > 0 ? Double(free) / Double(total) : 1
        let message = "\(Self.bytes(free)) free of \(Self.bytes(total)) (\(Int((share * 100).rounded())) %)"
        let advice = "free space, or `tally compact --retain 90d` to delete old days; a full disk dead-letters writes"
        if share < Self.failBelow.share || free < Self.failBelow.bytes {
            return DoctorCheck("disk space", .failure, message, advice: advice)
        }
        if share < Self.warnBelow.share || free < Self.warnBelow.bytes {
            return DoctorCheck("disk space", .warning, message, advice: advice)
        }
        return DoctorCheck("disk space", .ok, message)
    }

    /// The day files: how many, which days; torn tails, days after tomorrow, files of other names.
    private func eventFiles(now: Timestamp) -> [DoctorCheck] {
        let segments: [FileStoreLayout.Segment]
        let identities: [FileStoreLayout.Segment]
        do {
            segments = try layout.eventSegments()
            identities = try layout.identitySegments()
        } catch {
            return [DoctorCheck("event files", .failure, "\(error)", advice: "check the directory's permissions")]
        }
        var checks: [DoctorCheck] = []
        let bytes = segments.reduce(Int64(0)) { $0 + Self.size($1.path) }
        if let first = segments.first, let last = segments.last {
            let days = Set(segments.map(\.day)).count
            checks.append(
                DoctorCheck(
                    "event files",
                    .ok,
                    "\(segments.count) in \(days) day(s), \(first.day.isoString) to \(last.day.isoString), "
                        + Self.bytes(bytes)
                )
            )
        } else {
            checks.append(DoctorCheck("event files", .ok, "none yet"))
        }
        let torn = (segments + identities).filter { Self.endsTorn($0.path) }
        if !torn.isEmpty {
            checks.append(
                DoctorCheck(
                    "torn lines",
                    .warning,
                    "\(torn.count) file(s) end in a line cut short (a writer was killed mid-write): "
                        + torn.prefix(3).map { ($0.path as NSString).lastPathComponent }.joined(separator: ", "),
                    advice: "harmless (readers skip it, the next writer ends it); `tally compact` removes it"
                )
            )
        }
        let tomorrow = CivilDate(daysSinceEpoch: now.utcDate.daysSinceEpoch + 1)
        let future = segments.filter { $0.day.daysSinceEpoch > tomorrow.daysSinceEpoch }
        if !future.isEmpty {
            checks.append(
                DoctorCheck(
                    "future days",
                    .warning,
                    "\(future.count) file(s) of days after \(tomorrow.isoString): "
                        + Set(future.map(\.day.isoString)).sorted().prefix(3).joined(separator: ", "),
                    advice: "events stored before the clock-skew guard; their devices' clocks were wrong"
                )
            )
        }
        let known = Set(segments.map(\.path))
        let strangers = ((try? FileManager.default.contentsOfDirectory(atPath: layout.eventsDirectory)) ?? [])
            .filter { !$0.hasPrefix(".") && !known.contains(layout.eventsDirectory + "/" + $0) }.sorted()
        if !strangers.isEmpty {
            checks.append(
                DoctorCheck(
                    "other files",
                    .warning,
                    "\(strangers.count) file(s) in \(layout.eventsDirectory) that the store does not read: "
                        + strangers.prefix(3).joined(separator: ", "),
                    advice: "day files are named events-YYYY-MM-DD[.N].ndjson; move the others away"
                )
            )
        }
        return checks
    }

    /// A directory of NDJSON files of refused events: how many lines, and the newest file's last reason.
    private func waiting(_ name: String, directory: String, prefix: String) -> DoctorCheck {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasPrefix(prefix) && $0.hasSuffix(".ndjson") && (prefix != "" || !$0.hasPrefix(".")) }
        let files = names.map { directory + "/" + $0 }
        let lines = files.reduce(0) { $0 + Self.lineCount($1) }
        guard lines > 0 else { return DoctorCheck(name, .ok, "none") }
        let newest = files.max { Self.modified($0) < Self.modified($1) }
        let reason = newest.flatMap(Self.lastReason).map { "; newest reason: \($0)" } ?? ""
        return DoctorCheck(
            name,
            .warning,
            "\(lines) in \(files.count) file(s) under \(directory)\(reason)",
            advice: "`tally status` lists them by reason; fix the plan or the sender, then `tally replay` them"
        )
    }

    static func size(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }

    static func modified(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mtim.tv_sec : 0
    }

    /// Whether a non-empty file's last byte is not a newline.
    static func endsTorn(_ path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_size > 0 else { return false }
        var byte: UInt8 = 0
        return pread(descriptor, &byte, 1, info.st_size - 1) == 1 && byte != UInt8(ascii: "\n")
    }

    static func lineCount(_ path: String) -> Int {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return 0 }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var count = 0
        var last: UInt8 = UInt8(ascii: "\n")
        while true {
            let got = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard got > 0 else { break }
            for index in 0..<got where buffer[index] == UInt8(ascii: "\n") { count += 1 }
            last = buffer[got - 1]
        }
        return last == UInt8(ascii: "\n") ? count : count + 1
    }

    /// The `reason` of the file's last complete line.
    static func lastReason(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let size = Self.size(path)
        try? handle.seek(toOffset: UInt64(max(0, size - 65_536)))
        guard let data = try? handle.readToEnd() else { return nil }
        let lines = data.split(separator: UInt8(ascii: "\n"))
        guard let line = lines.last, let value = try? JSONParser.parse(Array(line)) else { return nil }
        return value["reason"]?.stringValue
    }

    static func bytes(_ count: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f %@", value, units[unit])
    }
}
