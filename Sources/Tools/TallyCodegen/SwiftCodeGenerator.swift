package import TallySchema

/// `tally schema generate --swift`: typed Swift events from tracking plans.
///
/// One file per plan (`episode.json` → `episode.tracking.swift`), holding one enum per screen
/// (`EpisodeListEvent`; one per feature for plans without screens) that conforms to
/// `TrackingEventContract`: a case per event (its latest version) whose parameters are the plan's
/// properties, typed (`Int`, `Double`, `Bool`, `String`, enums for `enum`, structs for nested
/// objects, arrays), optional when not required. `name` and `properties` are produced from them.
/// The output depends on the plans alone: the same plans give byte-identical files.
package struct SwiftCodeGenerator: Sendable {
    /// One generated file.
    package struct File: Sendable, Hashable {
        /// `episode.tracking.swift`.
        package var name: String
        /// The Swift source.
        package var contents: String
    }

    /// The files, in feature order.
    package let files: [File]
    /// Names converted or made unique, schemas approximated: for stderr.
    package let diagnostics: [CodegenDiagnostic]

    /// Generates the events of every plan of `registry`.
    package init(registry: SchemaRegistry) {
        let catalog = EventCatalog(registry: registry)
        files = catalog.files.map { File(name: $0.fileName, contents: SwiftEventRenderer.render($0)) }
        diagnostics = catalog.diagnostics
    }
}
