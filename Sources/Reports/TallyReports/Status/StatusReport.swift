import Foundation
package import TallyCore
package import TallySchema

/// `tally status`: the tracking plans against what a store saw over a window.
package struct StatusReport: Sendable, Equatable {
    /// A planned event with no event in the window.
    package struct NeverSeen: Sendable, Equatable {
        package var event: String
        package var feature: String
        /// The last time it was seen at all (before or after the window); nil: never.
        package var lastSeen: Timestamp?
    }

    /// An event no plan declares.
    package struct Unplanned: Sendable, Equatable {
        package var event: String
        package var features: [String]
        package var count: Int
        package var firstSeen: Timestamp
        package var lastSeen: Timestamp
        package var appVersions: [String]
        /// `context.platform` values.
        package var sources: [String]
    }

    /// How seen events differ from their plan.
    package enum DriftKind: String, Sendable, Equatable {
        /// A property with a type the plan does not allow.
        case typeMismatch = "type_mismatch"
        /// A property the plan does not declare (and does not allow undeclared).
        case undeclared = "undeclared_property"
        /// A required property missing.
        case missingRequired = "missing_required"
    }

    /// One drift: an event version, a property, what is wrong, how often, an example event id.
    package struct Drift: Sendable, Equatable {
        package var event: String
        /// The plan version compared with.
        package var version: String
        package var kind: DriftKind
        package var property: String
        /// For ``DriftKind/typeMismatch``: the type seen.
        package var seenType: String?
        /// For ``DriftKind/typeMismatch``: the types the plan allows.
        package var expected: String?
        package var count: Int
        /// The smallest event id among them.
        package var example: String
    }

    package var neverSeen: [NeverSeen] = []
    package var unplanned: [Unplanned] = []
    package var drift: [Drift] = []
    /// Failed events by reason, most first.
    package var rejected: [(reason: String, count: Int)] = []
    /// Events read in the window.
    package var eventsRead = 0

    /// Whether anything was found (exit code 1).
    package var hasFindings: Bool { !neverSeen.isEmpty || !unplanned.isEmpty || !drift.isEmpty || !rejected.isEmpty }

    package static func == (lhs: StatusReport, rhs: StatusReport) -> Bool {
        lhs.neverSeen == rhs.neverSeen && lhs.unplanned == rhs.unplanned && lhs.drift == rhs.drift
            && lhs.rejected.map(\.reason) == rhs.rejected.map(\.reason)
            && lhs.rejected.map(\.count) == rhs.rejected.map(\.count) && lhs.eventsRead == rhs.eventsRead
    }

    /// Compares `observations` with `registry`.
    package init(registry: SchemaRegistry, observations: StatusObservations) {
        eventsRead = observations.eventsRead
        for name in registry.eventNames where observations.seen[name] == nil {
            guard let schema = registry.event(name) else { continue }
            neverSeen.append(
                NeverSeen(event: name, feature: schema.feature, lastSeen: observations.lastSeenEver[name])
            )
        }
        for (name, seen) in observations.seen.sorted(by: { $0.key < $1.key }) where registry.event(name) == nil {
            let origins = observations.origins[name] ?? StatusObservations.Origins()
            unplanned.append(
                Unplanned(
                    event: name,
                    features: origins.features.sorted(),
                    count: seen.count,
                    firstSeen: seen.first,
                    lastSeen: seen.last,
                    appVersions: origins.appVersions.sorted(),
                    sources: origins.sources.sorted()
                )
            )
        }
        drift = Self.drift(registry: registry, observations: observations)
        rejected = observations.rejected.map { (reason: $0.key, count: $0.value) }.sorted {
            ($1.count, $0.reason) < ($0.count, $1.reason)
        }
    }

    /// The drift of every planned event seen, against the version each was stored with (the latest
    /// when none, or one the registry no longer has).
    private static func drift(registry: SchemaRegistry, observations: StatusObservations) -> [Drift] {
        // Observations of one plan version merged (events without a version and with the latest's).
        var byPlan: [StatusObservations.EventVersion: (EventSchema, [String: [String: StatusObservations.Sample]])] =
            [:]
        var missingByPlan: [StatusObservations.EventVersion: [String: StatusObservations.Sample]] = [:]
        func plan(_ key: StatusObservations.EventVersion) -> EventSchema? {
            registry.event(key.name, version: SchemaVer(key.version)) ?? registry.event(key.name)
        }
        for (key, properties) in observations.propertyClasses {
            guard let schema = plan(key) else { continue }
            let planKey = StatusObservations.EventVersion(name: key.name, version: schema.versionText)
            var merged = byPlan[planKey]?.1 ?? [:]
            for (property, classes) in properties {
                for (valueClass, sample) in classes {
                    merged[property, default: [:]][valueClass, default: .init(count: 0, example: sample.example)].add(
                        sample
                    )
                }
            }
            byPlan[planKey] = (schema, merged)
        }
        for (key, missing) in observations.missingRequired {
            guard let schema = plan(key) else { continue }
            let planKey = StatusObservations.EventVersion(name: key.name, version: schema.versionText)
            for (property, sample) in missing {
                missingByPlan[planKey, default: [:]][property, default: .init(count: 0, example: sample.example)].add(
                    sample
                )
            }
        }
        var result: [Drift] = []
        for (key, (schema, properties)) in byPlan {
            let object = schema.properties
            let openByPattern = object.source["patternProperties"] != nil
            for (property, classes) in properties {
                let declared = object.property(property)
                var allowed: JSONSchema?
                if let declared {
                    allowed = declared
                } else {
                    switch object.additionalProperties {
                    case .allowed: continue
                    case .schema(let additional): allowed = additional
                    case .forbidden:
                        if openByPattern { continue }
                        var total = StatusObservations.Sample(count: 0, example: classes.values.first?.example ?? "")
                        for sample in classes.values { total.add(sample) }
                        result.append(
                            Drift(
                                event: key.name,
                                version: key.version,
                                kind: .undeclared,
                                property: property,
                                count: total.count,
                                example: total.example
                            )
                        )
                        continue
                    }
                }
                guard let allowed, let types = allowed.types else { continue }
                // Classes shown as their JSON type: "string" for every kind of string seen.
                var mismatched: [String: StatusObservations.Sample] = [:]
                for (valueClass, sample) in classes
                where !allows(types, valueClass, normalizes: schema.normalizesStrings) {
                    let shown = valueClass.hasPrefix("string") ? "string" : valueClass
                    mismatched[shown, default: .init(count: 0, example: sample.example)].add(sample)
                }
                for (shown, sample) in mismatched {
                    result.append(
                        Drift(
                            event: key.name,
                            version: key.version,
                            kind: .typeMismatch,
                            property: property,
                            seenType: shown,
                            expected: types.map(\.rawValue).sorted().joined(separator: " or "),
                            count: sample.count,
                            example: sample.example
                        )
                    )
                }
            }
        }
        for (key, missing) in missingByPlan {
            for (property, sample) in missing {
                result.append(
                    Drift(
                        event: key.name,
                        version: key.version,
                        kind: .missingRequired,
                        property: property,
                        count: sample.count,
                        example: sample.example
                    )
                )
            }
        }
        return result.sorted {
            ($0.event, $0.version, $0.property, $0.kind.rawValue, $0.seenType ?? "")
                < ($1.event, $1.version, $1.property, $1.kind.rawValue, $1.seenType ?? "")
        }
    }

    /// Whether a value of `valueClass` satisfies a schema of `types`.
    static func allows(_ types: Set<JSONSchema.JSONType>, _ valueClass: String, normalizes: Bool) -> Bool {
        func has(_ type: JSONSchema.JSONType) -> Bool { types.contains(type) }
        switch valueClass {
        case "integer": return has(.integer) || has(.number)
        case "number": return has(.number)
        case "boolean": return has(.boolean)
        case "null": return has(.null)
        case "object": return has(.object)
        case "array": return has(.array)
        case "string": return has(.string)
        default:
            if has(.string) { return true }
            guard normalizes else { return false }
            switch valueClass {
            case "string:integer": return has(.integer) || has(.number)
            case "string:number": return has(.number)
            case "string:boolean": return has(.boolean)
            case "string:object": return has(.object)
            case "string:array": return has(.array)
            default: return false
            }
        }
    }
}
