package import TallyCore

/// What an import produced and what it could not represent.
package struct ImportReport: Sendable {
    /// One source schema, event or rule (or part of one) that was not imported.
    package struct Refusal: Sendable, Hashable, CustomStringConvertible {
        /// The file (and, for plans, the JSON path) of the source.
        package var source: String
        /// Why.
        package var reason: String

        package var description: String { "\(source): \(reason)" }
    }

    /// The plans produced, as documents ready to write (`feature.json`).
    package var plans: [String: JSONValue] = [:]
    /// How many source schemas or events became events (each one event version).
    package var importedCount = 0
    /// Everything that was not imported, with the reason.
    package var refusals: [Refusal] = []

    /// Whether nothing was imported and something was refused: `tally schema import` then exits 1.
    package var importedNothing: Bool { importedCount == 0 && !refusals.isEmpty }

    /// Creates an empty report.
    package init() {}
}
