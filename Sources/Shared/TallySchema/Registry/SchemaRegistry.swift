import Foundation
import TallyCore

/// Every tracking plan, checked and frozen: lookups never lock and never hop to an actor.
public struct SchemaRegistry: Sendable {
    /// The plans, by feature.
    public let plans: [String: TrackingPlan]
    private let versionsByName: [String: [EventSchema]]
    /// tally's own events (``BuiltinPlan``), unless a plan declares feature `tally`.
    private let builtinVersions: [String: [EventSchema]]

    /// Every problem found while loading, each with its file and JSON path.
    ///
    /// A list rather than one error, so that lint shows everything to fix in one run: match on
    /// each problem's ``SchemaError/code``.
    public struct LoadError: Error, Sendable, CustomStringConvertible {
        /// The problems, in file order (never empty).
        public internal(set) var problems: [SchemaError]

        public var description: String {
            "\(problems.count) problem\(problems.count == 1 ? "" : "s") in the registry:\n"
                + problems.map { "  \($0)" }.joined(separator: "\n")
        }
    }

    /// Builds a registry from parsed plans, checking what spans plans.
    /// - Throws: ``LoadError`` listing every duplicate or colliding name.
    public init(plans: [TrackingPlan]) throws(LoadError) {
        var problems: [SchemaError] = []
        var byFeature: [String: TrackingPlan] = [:]
        var versions: [String: [EventSchema]] = [:]
        var collisionOwners: [String: String] = [:]
        for plan in plans {
            if let other = byFeature[plan.feature] {
                problems.append(
                    SchemaError(
                        .duplicateEvent,
                        file: plan.file,
                        path: "$.feature",
                        message: "feature \(plan.feature) is also declared in \(other.file ?? "another plan")"
                    )
                )
                continue
            }
            byFeature[plan.feature] = plan
            for event in plan.events {
                let key = NamingRules.collisionKey(event.name)
                if let owner = collisionOwners[key], owner != event.name {
                    problems.append(
                        SchemaError(
                            .nameCollision,
                            file: event.file,
                            path: event.path + ".name",
                            message: "\(event.name) collides with \(owner)"
                        )
                    )
                    continue
                }
                collisionOwners[key] = event.name
                if let existing = versions[event.name]?.first(where: { $0.version == event.version }) {
                    let place = existing.feature == event.feature ? "" : " (feature \(existing.feature))"
                    problems.append(
                        SchemaError(
                            .duplicateEvent,
                            file: event.file,
                            path: event.path,
                            message: "\(event.name) \(event.version) is declared twice\(place)"
                        )
                    )
                    continue
                }
                if let owner = versions[event.name]?.first, owner.feature != event.feature {
                    problems.append(
                        SchemaError(
                            .nameCollision,
                            file: event.file,
                            path: event.path + ".name",
                            message: "\(event.name) already belongs to feature \(owner.feature)"
                        )
                    )
                    continue
                }
                versions[event.name, default: []].append(event)
            }
        }
        guard problems.isEmpty else { throw LoadError(problems: problems) }
        self.plans = byFeature
        versionsByName = versions.mapValues { $0.sorted { $0.version < $1.version } }
        builtinVersions =
            byFeature[BuiltinPlan.feature] == nil
            ? Dictionary(grouping: BuiltinPlan.events.filter { versions[$0.name] == nil }, by: \.name) : [:]
    }

    /// Loads every `*.json` file of `directory` (one plan per file).
    /// - Throws: ``LoadError`` with every problem of every file, never just the first.
    public static func load(directory: String) throws(LoadError) -> SchemaRegistry {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }
                .sorted()
        } catch {
            throw LoadError(problems: [
                SchemaError(.malformedFile, file: directory, path: "$", message: "cannot read the directory")
            ])
        }
        var problems: [SchemaError] = []
        var plans: [TrackingPlan] = []
        if names.isEmpty {
            problems.append(
                SchemaError(.malformedFile, file: directory, path: "$", message: "no *.json tracking plans")
            )
        }
        for name in names {
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            guard let data = FileManager.default.contents(atPath: path) else {
                problems.append(SchemaError(.malformedFile, file: path, path: "$", message: "cannot be read"))
                continue
            }
            let value: JSONValue
            do {
                value = try JSONParser.parse(Array(data))
            } catch {
                problems.append(SchemaError(.malformedFile, file: path, path: "$", message: "not JSON: \(error)"))
                continue
            }
            if let plan = TrackingPlanParser().parse(value, file: path, problems: &problems) { plans.append(plan) }
        }
        let registry: SchemaRegistry
        do {
            registry = try SchemaRegistry(plans: plans)
        } catch {
            throw LoadError(problems: problems + error.problems)
        }
        guard problems.isEmpty else { throw LoadError(problems: problems) }
        return registry
    }

    /// Every version of `name`, oldest first; empty when unknown.
    public func versions(of name: String) -> [EventSchema] {
        versionsByName[name] ?? builtinVersions[name] ?? []
    }

    /// `name` at `version`, or its latest version when `version` is nil.
    public func event(_ name: String, version: SchemaVer? = nil) -> EventSchema? {
        guard let versions = versionsByName[name] ?? builtinVersions[name] else { return nil }
        guard let version else { return versions.last }
        return versions.first { $0.version == version }
    }

    /// Every event name of the plans, sorted (tally's built-in events are not listed).
    public var eventNames: [String] { versionsByName.keys.sorted() }
}
