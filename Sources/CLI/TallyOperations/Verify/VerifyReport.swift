/// What `tally schema verify` found: plan and code compared, with file:line for the code side.
package struct VerifyReport: Sendable {
    /// A planned event no code produces.
    package struct Unimplemented: Sendable, Hashable {
        /// The event name.
        package var name: String
        /// Its feature.
        package var feature: String
        /// Where the plan declares it (`episode.json $.events[2]`).
        package var declaredIn: String
    }

    /// An event name the code produces, and where.
    package struct Coded: Sendable, Hashable {
        package var name: String
        package var location: SourceLocation
        /// How: `SearchEvent.name` (a conformance) or `EpisodeListEvent.viewed` (a generated case used).
        package var via: String
    }

    /// A `name` verify cannot evaluate: reported, never guessed.
    package struct Unresolved: Sendable, Hashable {
        package var location: SourceLocation
        package var message: String
    }

    /// Planned events that no code produces, by name.
    package var plannedNotCoded: [Unimplemented] = []
    /// Names the code produces that no plan declares, each place once.
    package var codedNotPlanned: [Coded] = []
    /// Conformances whose names could not be told.
    package var unresolved: [Unresolved] = []
    /// Every event the code produces.
    package var coded: [Coded] = []
    /// Swift files parsed (generated files included).
    package var filesParsed = 0
    /// Files written by tally-codegen, whose events count as coded only where they are used.
    package var generatedFiles = 0
    /// Types conforming to `TrackingEventContract` (or a protocol refining it) in the sources.
    package var conformances: [String] = []

    /// Whether anything needs attention (the command's exit code 1).
    package var hasFindings: Bool { !plannedNotCoded.isEmpty || !codedNotPlanned.isEmpty || !unresolved.isEmpty }
}
