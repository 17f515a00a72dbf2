public import TallyCore

/// What an import produced and what it could not represent.
public struct ImportReport: Sendable {
    /// One source schema or event that was not imported.
    public struct Refusal: Sendable, Hashable, CustomStringConvertible {
        /// The file (and, for plans, the JSON path) of the source.
        public var source: String
        /// Why.
        public var reason: String

        public var description: String { "\(source): \(reason)" }
    }

    /// The plans produced, as documents ready to write (`feature.json`).
    public var plans: [String: JSONValue] = [:]
    /// How many source schemas or events became events.
    public var importedCount = 0
    /// Names that were changed to meet tally's naming rules (`Order Completed` → `order_completed`).
    public var renamed: [String] = []
    /// Everything that was not imported, with the reason.
    public var refusals: [Refusal] = []

    /// Creates an empty report.
    public init() {}
}
