import Foundation
package import TallySchema

/// The Swift API generated for a registry: one file per plan, in it one enum per screen (one per
/// feature for plans without screens), a case per event (its latest version), a parameter per
/// property. `tally schema verify` reads it too, to know which event a generated case stands for.
package struct EventCatalog: Sendable {
    /// One event: the case that tracks it.
    package struct Event: Sendable, Hashable {
        /// `episode_list_episode_selected`.
        package var name: String
        /// The version generated (the latest).
        package var version: String
        /// The enum (`EpisodeListEvent`).
        package var typeName: String
        /// The case, unescaped (`episodeSelected`).
        package var caseName: String
        var description: String
        var parameters: [SwiftField]
    }

    /// One generated enum.
    struct EventType: Sendable {
        var name: String
        var documentation: [String]
        var events: [Event]
        var nested: [NestedDeclaration]
    }

    /// The file generated from one plan.
    struct FeatureFile: Sendable {
        var feature: String
        /// The plan's file name (`episode.json`).
        var planFile: String
        /// `episode.tracking.swift`.
        var fileName: String
        var types: [EventType]
    }

    let files: [FeatureFile]
    /// What the conversion changed or approximated.
    package let diagnostics: [CodegenDiagnostic]

    /// The API for every plan of `registry`, in feature order.
    package init(registry: SchemaRegistry) {
        var diagnostics: [CodegenDiagnostic] = []
        let moduleTypes = NameScope(reserved: TypeNamespace.reservedTypeNames)
        var files: [FeatureFile] = []
        for plan in registry.plans.values.sorted(by: { $0.feature < $1.feature }) {
            let planFile = plan.file.map { URL(fileURLWithPath: $0).lastPathComponent } ?? plan.feature + ".json"
            var types: [EventType] = []
            for (group, events) in Self.groups(of: plan) {
                let typeName = moduleTypes.claim(
                    group + "_event",
                    convert: SwiftNames.upperCamel,
                    what: "type of",
                    file: planFile,
                    path: "$",
                    diagnostics: &diagnostics
                )
                let cases = NameScope(reserved: ["name", "properties", "typedProperties"])
                let namespace = TypeNamespace(taken: [])
                var generated: [Event] = []
                for (action, schema) in events {
                    let caseName = cases.claim(
                        action,
                        convert: SwiftNames.lowerCamel,
                        what: "event",
                        file: planFile,
                        path: schema.path + ".name",
                        diagnostics: &diagnostics
                    )
                    var mapper = SchemaTypeMapper(root: schema.properties.source, file: planFile)
                    let parameters = mapper.fields(
                        of: schema.properties.source,
                        path: schema.path + ".properties",
                        scope: NameScope(),
                        namespace: namespace,
                        prefix: SwiftNames.upperCamel(caseName).identifier
                    )
                    diagnostics += mapper.diagnostics
                    generated.append(
                        Event(
                            name: schema.name,
                            version: schema.versionText,
                            typeName: typeName,
                            caseName: caseName,
                            description: schema.description,
                            parameters: parameters
                        )
                    )
                }
                let subject = plan.naming == .screenAction ? "the \(group) screen" : "feature \(plan.feature)"
                types.append(
                    EventType(
                        name: typeName,
                        documentation: ["The events of \(subject), from the tracking plan \(planFile)."]
                            + (plan.description.isEmpty ? [] : [""] + Documentation.lines(plan.description)),
                        events: generated,
                        nested: namespace.declarations
                    )
                )
            }
            let stem = planFile.hasSuffix(".json") ? String(planFile.dropLast(5)) : planFile
            files.append(
                FeatureFile(feature: plan.feature, planFile: planFile, fileName: stem + ".tracking.swift", types: types)
            )
        }
        self.files = files
        self.diagnostics = diagnostics
    }

    /// Every generated event case.
    package var events: [Event] { files.flatMap { $0.types.flatMap(\.events) } }

    /// The plan's events (latest version of each name, in the plan's order), grouped by screen in the
    /// order the plan lists its screens, with each event's name after its screen; one group named after
    /// the feature when the plan has no screens (imported plans).
    private static func groups(of plan: TrackingPlan) -> [(String, [(String, EventSchema)])] {
        var latest: [String: EventSchema] = [:]
        var order: [String] = []
        for event in plan.events {
            if let current = latest[event.name] {
                if current.version < event.version { latest[event.name] = event }
            } else {
                latest[event.name] = event
                order.append(event.name)
            }
        }
        let events = order.compactMap { latest[$0] }
        guard plan.naming == .screenAction, !plan.screens.isEmpty else {
            return [(plan.feature, events.map { ($0.name, $0) })]
        }
        let screens = plan.screens.sorted { $0.count > $1.count }
        var byScreen: [String: [(String, EventSchema)]] = [:]
        for event in events {
            let screen = screens.first { event.name.hasPrefix($0 + "_") } ?? event.screen
            let action =
                event.name.hasPrefix(screen + "_") ? String(event.name.dropFirst(screen.count + 1)) : event.name
            byScreen[screen, default: []].append((action, event))
        }
        return plan.screens.compactMap { screen in byScreen[screen].map { (screen, $0) } }
    }
}
