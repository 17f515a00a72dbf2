import Foundation
import TallyCodegen
package import TallySchema

/// `tally schema verify`: compares the events Swift code produces with the tracking plans.
///
/// The code's events are (1) the names produced by every type conforming to
/// `TrackingEventContract`, directly or through a protocol that refines it, found in any file by
/// swift-syntax (so across the packages of a modular app: pass each `Sources` directory), and
/// (2) the generated cases used by name (`EpisodeListEvent.viewed`), which stand for the events
/// the plans give them. Files written by tally-codegen are not conformances of their own: a
/// generated event counts as coded only where it is used.
package struct PlanVerifier: Sendable {
    /// The plans.
    package let registry: SchemaRegistry

    /// A verifier against `registry`.
    package init(registry: SchemaRegistry) {
        self.registry = registry
    }

    /// Parses every Swift file under `directories` and compares.
    package func verify(sources directories: [String]) throws -> VerifyReport {
        var report = VerifyReport()
        var types: [String: [DeclaredType]] = [:]
        var references: [DeclarationCollector.MemberReference] = []
        for path in try SourceFiles.find(in: directories) {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw VerifyError(.unreadableSource, "cannot read \(path)")
            }
            let file = ParsedFile(path: path, source: String(decoding: data, as: UTF8.self))
            report.filesParsed += 1
            if file.isGenerated {
                report.generatedFiles += 1
                continue
            }
            let collector = DeclarationCollector(file: file)
            collector.walk(file.tree)
            for type in collector.types { types[type.name, default: []].append(type) }
            references += collector.references
        }
        let resolver = EventNameResolver(types: types)
        for type in Self.conformingTypes(types) {
            report.conformances.append(type)
            let outcome = resolver.names(of: type)
            report.coded += outcome.names.map { .init(name: $0.name, location: $0.location, via: "\(type).name") }
            report.unresolved += outcome.unresolved
        }
        report.coded += generatedUses(references, shadowed: Set(report.conformances))
        report.coded.sort { ($0.location, $0.name) < ($1.location, $1.name) }
        report.unresolved = Array(Set(report.unresolved)).sorted { $0.location < $1.location }
        let codedNames = Set(report.coded.map(\.name))
        for name in registry.eventNames where !codedNames.contains(name) {
            guard let schema = registry.event(name) else { continue }
            let file = schema.file.map { URL(fileURLWithPath: $0).lastPathComponent } ?? schema.feature
            report.plannedNotCoded.append(
                VerifyReport.Unimplemented(name: name, feature: schema.feature, declaredIn: "\(file) \(schema.path)")
            )
        }
        report.codedNotPlanned = report.coded.filter { registry.event($0.name) == nil }
        return report
    }

    /// Names of the types that conform to `TrackingEventContract`, directly or through protocols
    /// refining it, sorted.
    static func conformingTypes(_ types: [String: [DeclaredType]]) -> [String] {
        var protocols: Set<String> = ["TrackingEventContract", "TypedTrackingEventContract"]
        var grew = true
        while grew {
            grew = false
            for declarations in types.values {
                for declaration in declarations where declaration.kind == .protocolType {
                    if !protocols.contains(declaration.simpleName),
                        declaration.inherited.contains(where: protocols.contains)
                    {
                        protocols.insert(declaration.simpleName)
                        grew = true
                    }
                }
            }
        }
        return types.compactMap { name, declarations in
            declarations.contains { $0.kind != .protocolType && $0.inherited.contains(where: protocols.contains) }
                ? name : nil
        }.sorted()
    }

    /// Uses of generated cases (`EpisodeListEvent.viewed`, `Feature.EpisodeListEvent.episodeSelected(…)`);
    /// a type of the sources with a generated type's name is the sources' own.
    private func generatedUses(_ references: [DeclarationCollector.MemberReference], shadowed: Set<String>)
        -> [VerifyReport.Coded]
    {
        var byType: [String: [String: String]] = [:]
        for event in EventCatalog(registry: registry).events {
            byType[event.typeName, default: [:]][event.caseName] = event.name
        }
        return references.compactMap { reference in
            let typeName = String(reference.base.split(separator: ".").last ?? Substring(reference.base))
            guard !shadowed.contains(typeName), let name = byType[typeName]?[reference.member] else { return nil }
            return VerifyReport.Coded(
                name: name,
                location: reference.location,
                via: "\(typeName).\(reference.member)"
            )
        }
    }
}
