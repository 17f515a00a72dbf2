import Foundation
package import TallyCore
package import TallyReports
package import TallySchema

/// What every page and API route reads from: the store, the tracking plans (optional), the saved
/// reports' directory (optional).
package struct DashboardContext: Sendable {
    package let store: DashboardStore
    package let registry: SchemaRegistry?
    package let reportsDirectory: String?

    package init(store: DashboardStore, registry: SchemaRegistry?, reportsDirectory: String?) {
        self.store = store
        self.registry = registry
        self.reportsDirectory = reportsDirectory
    }

    /// A panel: a report of `kind` defined by the page's shared parameters and `items` (the CLI's
    /// option names), run, and drawn with its chart, table and API links.
    package func panel(
        _ title: String,
        kind: String,
        _ items: [(String, String)],
        shared: [(String, String)]
    ) async -> String {
        let query = shared + items
        do {
            let report = try Self.parameters(query).report(kind: kind)
            let (scope, result) = try await store.run(report)
            return ResultView.render(
                result,
                scope: scope,
                source: ResultView.Source(path: "/api/v1/report/\(kind)", query: query),
                title: title
            )
        } catch {
            return Self.failedPanel(title, error)
        }
    }

    /// A panel that could not be drawn, with why (a timeout does not take the page down).
    package static func failedPanel(_ title: String, _ error: any Error) -> String {
        let message = (error as? DashboardError)?.message ?? "this panel could not be read"
        return "<section class=\"panel\"><h2>\(HTML.escape(title))</h2><p class=\"error\" role=\"alert\">"
            + "\(HTML.escape(message))</p></section>"
    }

    static func parameters(_ items: [(String, String)]) -> ReportParameters {
        var values: [String: [String]] = [:]
        for (name, value) in items { values[name, default: []].append(value) }
        return ReportParameters(values)
    }

    /// The saved report files: name (file name without `.json`) and what they hold, in name order.
    package func savedReports() -> [(name: String, file: SavedReportFile?, problem: String?)] {
        guard let directory = reportsDirectory,
            let names = try? FileManager.default.contentsOfDirectory(atPath: directory)
        else { return [] }
        return names.filter { $0.hasSuffix(".json") }.sorted().map { name in
            let path = (directory as NSString).appendingPathComponent(name)
            let base = String(name.dropLast(5))
            guard let data = FileManager.default.contents(atPath: path) else { return (base, nil, "cannot be read") }
            do throws(ReportError) {
                return (base, try SavedReportFile(Array(data)), nil)
            } catch {
                return (base, nil, error.description)
            }
        }
    }

    /// Failed events by reason in the range, most first.
    package func rejects(since: Timestamp, until: Timestamp) async throws -> [(String, Int)] {
        try await store.rejects(StatusWindow(since: since, until: until)).sorted {
            $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key
        }.map { ($0.key, $0.value) }
    }
}
