import Foundation
import TallyPostgres
import TallyTestSupport
import Testing

/// Every SQL sample of docs/reports.md runs, as a `tally_reader` member, on a database holding
/// the Examples sample: the reports guide's queries work as printed.
@Suite("docs/reports.md")
struct ReportQueriesTests {
    /// The sample's days (2026-11-08 … 2026-11-21) moved so that its last day is yesterday.
    static func shiftedToNow(_ text: String) throws -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let sampleEnd = calendar.date(from: DateComponents(year: 2026, month: 11, day: 22))!
        let shift = calendar.dateComponents([.day], from: sampleEnd, to: calendar.startOfDay(for: Date())).day ?? 0
        let formatter = DateFormatter()
        formatter.calendar = calendar
        formatter.timeZone = calendar.timeZone
        formatter.dateFormat = "yyyy-MM-dd"
        var result = text
        for day in 1...30 {
            let original = String(format: "2026-11-%02d", day)
            guard result.contains(original) else { continue }
            let moved = calendar.date(byAdding: .day, value: shift, to: formatter.date(from: original)!)!
            result = result.replacingOccurrences(
                of: "\"" + original + "T",
                with: "\"#" + formatter.string(from: moved) + "T"
            )
        }
        return result.replacingOccurrences(of: "\"#", with: "\"")
    }

    @Test("every SQL sample runs as the reader and returns rows")
    func queriesRun() async throws {
        let database = try await TestDatabase.create()
        #expect(try await TestDatabase.tally(["migrate", "--database-url", database.url]).status == 0)
        let data = NSTemporaryDirectory() + "tally-reports-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: data) }
        // The sample with its dates moved to the last days, so that "last 7 days" finds rows.
        let sample = try String(
            contentsOfFile: TestDatabase.repository + "/Examples/sample/events.ndjson",
            encoding: .utf8
        )
        let recent = try Self.shiftedToNow(sample)
        try recent.write(toFile: data + ".ndjson", atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: data + ".ndjson") }
        let load = try await TestDatabase.tally([
            "ingest", data + ".ndjson", "--registry", "Examples/registry", "--store", "postgres", "--database-url",
            database.url, "--data-dir", data, "--quiet",
        ])
        #expect(load.status == 0, "\(load.stderr)")

        let admin = try await PostgresConnection.connect(database.url)
        let reader = "report_\(UUID().uuidString.prefix(8).lowercased())"
        try await admin.execute("CREATE ROLE \(reader) LOGIN PASSWORD 'r' IN ROLE tally_reader")
        var components = URLComponents(string: database.url)!
        components.user = reader
        components.password = "r"
        let asReader = try await PostgresConnection.connect(components.string!)
        let guide = try String(contentsOfFile: TestDatabase.repository + "/docs/reports.md", encoding: .utf8)
        let blocks = Markdown.codeBlocks("sql", in: guide).map(\.code)
        #expect(blocks.count >= 5)
        for sql in blocks {
            let rows = try await asReader.query(sql)
            // The data-quality query may rightly find nothing; the others must find rows.
            #expect(!rows.isEmpty || sql.contains("failed_events"), "\(sql)")
        }
        await asReader.close()
        try await admin.execute("DROP OWNED BY \(reader)")
        try await admin.execute("DROP ROLE \(reader)")
        await admin.close()
    }
}
