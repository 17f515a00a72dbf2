import Foundation
import PackagePlugin

/// Generates a target's typed tracking events at build time from the tracking plans in its
/// `TrackingPlans` directory (one JSON plan per feature, as `tally schema lint` checks them).
///
/// Each plan `NAME.json` becomes `NAME.tracking.swift` in the build directory, compiled with the
/// target: one `{Screen}Event` enum per screen conforming to `TrackingEventContract`. Exclude the
/// directory from the target's sources (`exclude: ["TrackingPlans"]`) so SwiftPM does not ask what
/// the JSON files are.
@main
struct TallyPlanPlugin: BuildToolPlugin {
    /// The directory of a target that holds its plans.
    static let plansDirectory = "TrackingPlans"

    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        guard let target = target as? SwiftSourceModuleTarget else { return [] }
        let plans = target.directoryURL.appending(path: Self.plansDirectory)
        // A link to a shared registry is followed: the plans are read where they are.
        let names = (try? FileManager.default.contentsOfDirectory(atPath: plans.path)) ?? []
        let planFiles = names.filter { $0.hasSuffix(".json") }.sorted()
        guard !planFiles.isEmpty else {
            Diagnostics.warning(
                "TallyPlanPlugin: no tracking plans in \(plans.path) (add \(Self.plansDirectory)/FEATURE.json)"
            )
            return []
        }
        let output = context.pluginWorkDirectoryURL.appending(path: "GeneratedEvents")
        let inputs = planFiles.map { plans.appending(path: $0) }
        let outputs = planFiles.map { output.appending(path: String($0.dropLast(".json".count)) + ".tracking.swift") }
        return [
            .buildCommand(
                displayName: "Generating tracking events of \(target.name) from \(Self.plansDirectory)",
                executable: try context.tool(named: "tally-codegen").url,
                arguments: ["--registry", plans.path, "--output", output.path, "--quiet"],
                inputFiles: inputs,
                outputFiles: outputs
            )
        ]
    }
}
