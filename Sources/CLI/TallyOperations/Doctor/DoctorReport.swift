import TallyCore

/// What `tally doctor` found in one store, as a table for people or JSON for monitoring.
package struct DoctorReport: Sendable {
    /// The store that was checked (`postgres analytics on db:5432 (from DATABASE_URL)`).
    package var store: String
    /// The checks, in the order they ran.
    package var checks: [DoctorCheck]

    package init(store: String, checks: [DoctorCheck] = []) {
        self.store = store
        self.checks = checks
    }

    /// The worst status of any check.
    package var status: DoctorCheck.Status { checks.map(\.status).max() ?? .ok }

    /// `ok    name: message`, `warn  …`, `FAIL  …`, each failure or warning followed by its advice.
    package func renderText() -> String {
        var lines = ["store: \(store)"]
        for check in checks {
            let label =
                switch check.status {
                case .ok: "ok    "
                case .warning: "warn  "
                case .failure: "FAIL  "
                }
            lines.append(label + check.name + ": " + check.message)
            if let advice = check.advice { lines.append("      → " + advice) }
        }
        let failures = checks.filter { $0.status == .failure }.count
        let warnings = checks.filter { $0.status == .warning }.count
        lines.append(
            failures == 0 && warnings == 0
                ? "all \(checks.count) checks passed"
                : "\(failures) failed, \(warnings) \(warnings == 1 ? "warning" : "warnings"), "
                    + "\(checks.count - failures - warnings) ok"
        )
        return lines.joined(separator: "\n") + "\n"
    }

    /// `{"store":…,"status":"ok|warn|fail","checks":[{"name":…,"status":…,"message":…,"advice":…}]}`.
    package func renderJSON() -> String {
        let checks = checks.map { check in
            JSONValue.object(
                [
                    JSONMember(key: "name", value: .string(check.name)),
                    JSONMember(key: "status", value: .string(check.status.rawValue)),
                    JSONMember(key: "message", value: .string(check.message)),
                ] + (check.advice.map { [JSONMember(key: "advice", value: .string($0))] } ?? [])
            )
        }
        let object = JSONValue.object([
            JSONMember(key: "store", value: .string(store)),
            JSONMember(key: "status", value: .string(status.rawValue)),
            JSONMember(key: "checks", value: .array(checks)),
        ])
        return JSONWriter.text(object) + "\n"
    }
}
