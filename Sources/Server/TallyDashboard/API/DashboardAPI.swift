import Foundation
import TallyCore
import TallyReports

/// `/api/v1/`: the reports as `tally report --format json` prints them (or CSV), for the same
/// options: `GET /api/v1/report/{kind}?…` takes the CLI's option names as query parameters,
/// `POST /api/v1/report` a saved report's JSON; `GET /api/v1/reports` lists the saved reports and
/// `GET /api/v1/reports/{name}` runs one, as `tally report run NAME` does.
struct DashboardAPI: Sendable {
    let context: DashboardContext

    enum Format: String {
        case json, csv
    }

    static func format(_ parameters: ReportParameters) throws(DashboardError) -> Format {
        guard let text = parameters.first("format") else { return .json }
        guard let format = Format(rawValue: text) else { throw .badRequest("format: json or csv") }
        return format
    }

    /// The answer to `report`, as text in `format`.
    func answer(_ report: Report, format: Format) async throws -> String {
        let (scope, result) = try await context.store.run(report)
        switch format {
        case .json: return ReportJSONOutput.render(result, scope: scope, store: context.store.headline)
        case .csv: return ReportTextOutput.csv(result, scope: scope)
        }
    }

    func report(kind: String, _ parameters: ReportParameters) async throws -> (String, Format) {
        let format = try Self.format(parameters)
        return (try await answer(try parameters.report(kind: kind), format: format), format)
    }

    func posted(_ body: [UInt8]) async throws -> String {
        let file: SavedReportFile
        do throws(ReportError) { file = try SavedReportFile(body) } catch {
            throw DashboardError.badRequest(error.description)
        }
        guard file.reports.count == 1, file.title == nil else {
            throw DashboardError.badRequest("post one report (a dashboard's reports one at a time)")
        }
        return try await answer(file.reports[0], format: .json)
    }

    func savedList() -> String {
        let entries = context.savedReports().map { entry -> JSONValue in
            var members = [JSONMember(key: "name", value: .string(entry.name))]
            if let title = entry.file?.title ?? entry.file?.reports.first?.title {
                members.append(JSONMember(key: "title", value: .string(title)))
            }
            members.append(
                JSONMember(key: "kinds", value: .array((entry.file?.reports ?? []).map { .string($0.body.kind) }))
            )
            if let problem = entry.problem { members.append(JSONMember(key: "problem", value: .string(problem))) }
            return .object(members)
        }
        return JSONWriter.text(.object([JSONMember(key: "reports", value: .array(entries))])) + "\n"
    }

    /// A saved report file: every report (a dashboard: `{"title", "reports": […]}`, as `tally
    /// report run NAME --format json`), or with `index` one of them.
    func saved(_ name: String, _ parameters: ReportParameters) async throws -> (String, Format) {
        let format = try Self.format(parameters)
        guard let entry = context.savedReports().first(where: { $0.name == name }) else {
            throw DashboardError(.notFound, "no saved report \(name)")
        }
        guard let file = entry.file else {
            throw DashboardError(.unprocessableContent, "\(name).json: \(entry.problem ?? "")")
        }
        if let indexText = parameters.first("index") {
            guard let index = Int(indexText), file.reports.indices.contains(index) else {
                throw DashboardError.badRequest("index: 0 to \(file.reports.count - 1)")
            }
            return (try await answer(file.reports[index], format: format), format)
        }
        var texts: [String] = []
        for report in file.reports { texts.append(try await answer(report, format: format)) }
        if format == .json, let title = file.title {
            let joined = texts.map { $0.trimmingCharacters(in: .newlines) }.joined(separator: ",")
            return ("{\"title\":" + JSONWriter.text(.string(title)) + ",\"reports\":[" + joined + "]}\n", format)
        }
        return (texts.joined(separator: "\n"), format)
    }
}
