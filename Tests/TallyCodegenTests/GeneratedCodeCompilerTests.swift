import Foundation
import TallyCodegen
import TallyCore
import TallySchema
import TallyTestSupport
import Testing

/// What the generated events make the compiler catch, and that imported plans generate code that
/// compiles.
@Suite("Generated code and the compiler")
struct GeneratedCodeCompilerTests {
    static var examples: String { ConformanceData.repositoryRoot!.path + "/Examples/registry" }

    static let goodUse = """
        import Tracking

        func track(_ tracker: any TrackerContract) {
            tracker.track(EpisodeListEvent.episodeSelected(episodeID: "ep-1", position: 3))
            tracker.track(EpisodeDetailEvent.playTapped(episodeID: "ep-1", downloaded: true, player: .carPlay))
            tracker.track(PlayerEvent.speedChanged(speed: ._1_5))
            tracker.track(SearchEvent.querySubmitted(queryLength: 4, results: 0))
        }
        """

    @Test("a value of the wrong type and a misspelled event do not compile, and the compiler says why")
    func compilerErrors() async throws {
        let files = try Typecheck.generate(registry: Self.examples)
        let wrongType = try await Typecheck.run(
            files,
            sources: [
                "WrongType.swift": """
                import Tracking
                let event = EpisodeListEvent.episodeSelected(episodeID: "ep-1", position: "3")
                """
            ]
        )
        #expect(wrongType.status != 0)
        #expect(
            wrongType.output.contains("WrongType.swift:2:")
                && wrongType.output.contains("cannot convert value of type 'String' to expected argument type 'Int'"),
            "\(wrongType.output)"
        )
        let misspelled = try await Typecheck.run(
            files,
            sources: [
                "Misspelled.swift": """
                import Tracking
                let event = EpisodeListEvent.episodeSelectd(episodeID: "ep-1", position: 3)
                """
            ]
        )
        #expect(misspelled.status != 0)
        #expect(
            misspelled.output.contains("Misspelled.swift:2:")
                && misspelled.output.contains("type 'EpisodeListEvent' has no member 'episodeSelectd'"),
            "\(misspelled.output)"
        )
    }

    @Test("plans imported from Iglu Central and from a Segment Protocols export generate code that compiles")
    func importedPlansCompile() async throws {
        var files = try Typecheck.generate(registry: Self.examples)
        let segment = NSTemporaryDirectory() + "tally-segment-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: segment + "/plans", withIntermediateDirectories: true)
        try SegmentExport.plan.write(toFile: segment + "/plan.json", atomically: true, encoding: .utf8)
        let segmentReport = SegmentImporter().importPlan(at: segment + "/plan.json", feature: "shop")
        #expect(segmentReport.refusals.isEmpty, "\(segmentReport.refusals)")
        try Self.write(segmentReport.plans, to: segment + "/plans")
        files += try Typecheck.generate(registry: segment + "/plans")
        let iglu = try ConformanceData.require("snowplow-iglu/iglu-central")
        let report = IgluImporter().importRegistry(at: iglu.path)
        let directory = NSTemporaryDirectory() + "tally-iglu-" + UUID().uuidString
        try Self.write(report.plans, to: directory)
        let igluPlans = report.plans.count
        files += try Typecheck.generate(registry: directory)
        let result = try await Typecheck.run(files, sources: ["Use.swift": Self.goodUse])
        #expect(result.status == 0, "\(result.output.prefix(4_000))")
        print("typechecked \(files.count) generated files (\(igluPlans) Iglu Central plans) in one swiftc run")
    }

    static func write(_ plans: [String: JSONValue], to directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (feature, plan) in plans {
            try JSONWriter.text(plan, pretty: true).write(
                toFile: directory + "/" + feature + ".json",
                atomically: true,
                encoding: .utf8
            )
        }
    }
}
