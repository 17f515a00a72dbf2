public import TallyCore

/// What an import produced and what it could not represent.
public struct ImportReport: Sendable {
    /// One source schema, event or rule (or part of one) that was not imported.
    public struct Refusal: Sendable, Hashable, CustomStringConvertible {
        /// The file (and, for plans, the JSON path) of the source.
        public var source: String
        /// Why.
        public var reason: String

        public var description: String { "\(source): \(reason)" }
    }

    /// The plans produced, as documents ready to write (`feature.json`).
    public var plans: [String: JSONValue] = [:]
    /// How many source schemas or events became events (each one event version).
    public var importedCount = 0
    /// Everything that was not imported, with the reason.
    public var refusals: [Refusal] = []

    /// Whether nothing was imported and something was refused: `tally schema import` then exits 1.
    public var importedNothing: Bool { importedCount == 0 && !refusals.isEmpty }

    /// Creates an empty report.
    public init() {}
}
