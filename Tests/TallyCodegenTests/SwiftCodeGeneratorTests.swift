import Foundation
import TallyCodegen
import TallyCore
import TallySchema
import TallyTestSupport
import Testing

/// The generator's output: deterministic, typed, with every renamed name reported.
@Suite("Swift code generation")
struct SwiftCodeGeneratorTests {
    static func segmentRegistry() throws -> SchemaRegistry {
        let directory = NSTemporaryDirectory() + "tally-segment-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory + "/plans", withIntermediateDirectories: true)
        try SegmentExport.plan.write(toFile: directory + "/plan.json", atomically: true, encoding: .utf8)
        let report = SegmentImporter().importPlan(at: directory + "/plan.json", feature: "shop")
        try GeneratedCodeCompilerTests.write(report.plans, to: directory + "/plans")
        return try SchemaRegistry.load(directory: directory + "/plans")
    }

    @Test("the same plans give byte-identical files, however often and from whichever load")
    func deterministic() throws {
        let examples = GeneratedCodeCompilerTests.examples
        let first = SwiftCodeGenerator(registry: try SchemaRegistry.load(directory: examples))
        let second = SwiftCodeGenerator(registry: try SchemaRegistry.load(directory: examples))
        #expect(first.files == second.files)
        #expect(
            first.files.map(\.name) == ["episode.tracking.swift", "player.tracking.swift", "search.tracking.swift"]
        )
        let shop = try Self.segmentRegistry()
        #expect(SwiftCodeGenerator(registry: shop).files == SwiftCodeGenerator(registry: shop).files)
        // Written once, a second write changes nothing.
        let output = NSTemporaryDirectory() + "tally-generated-" + UUID().uuidString
        #expect(try first.write(to: output).count == 3)
        #expect(try second.write(to: output).isEmpty)
    }

    @Test("the plan's types, docs, enums and nested structs become Swift")
    func typedEvents() throws {
        let generator = SwiftCodeGenerator(
            registry: try SchemaRegistry.load(directory: GeneratedCodeCompilerTests.examples)
        )
        let episode = try #require(generator.files.first { $0.name == "episode.tracking.swift" }).contents
        #expect(episode.contains("enum EpisodeListEvent: TypedTrackingEventContract, Hashable {"))
        #expect(episode.contains("    case episodeSelected(episodeID: String, position: Int)"))
        #expect(episode.contains(#"        case .episodeSelected: "episode_list_episode_selected""#))
        #expect(
            episode.contains(
                #"["episode_id": TrackingValue.string(episodeID), "position": TrackingValue.integer(position)]"#
            )
        )
        #expect(episode.contains("    /// The user tapped an episode in the list."))
        // The latest version, its optional properties defaulted.
        #expect(episode.contains("`episode_detail_play_tapped`, version 1-0-1."))
        #expect(episode.contains("        player: Player? = nil"))
        #expect(episode.contains(#"        case deepLink = "deep_link""#))

        let shop = SwiftCodeGenerator(registry: try Self.segmentRegistry())
        let code = try #require(shop.files.first).contents
        #expect(code.contains("enum ShopEvent: TypedTrackingEventContract, Hashable {"))
        #expect(
            code.contains("        products: [OrderCompletedProductsItem],")
                || code.contains("products: [ProductsItem]")
        )
        #expect(code.contains("struct Shipping: Sendable, Hashable {"))
        #expect(code.contains("enum Rating: Int, Sendable, Hashable, CaseIterable {"))
        #expect(code.contains("        case _0_5 = 0.5"))
        #expect(code.contains("    case name2(`default`: String)"))
    }

    @Test("names that are not Swift identifiers, or collide once converted, are renamed and reported")
    func renamedNames() throws {
        let generator = SwiftCodeGenerator(registry: try Self.segmentRegistry())
        let messages = generator.diagnostics.map(\.description)
        func reported(_ text: String) -> Bool { messages.contains { $0.contains(text) } }
        #expect(reported(#"property "3d_secure" starts with a digit: generated as _3dSecure"#), "\(messages)")
        #expect(reported(#"property "$discount" has characters a Swift identifier cannot: generated as discount"#))
        #expect(reported(#"property "class" is a Swift keyword (escaped with backticks): generated as class"#))
        #expect(reported(#"property "caf" collides with another name as caf: generated as caf2"#))
        #expect(reported(#"enum value "2_day" collides with another name as _2Day: generated as _2Day2"#))
        #expect(reported(#"event "name" collides with another name as name: generated as name2"#))
        // Generated events send typed values: a plan with plain JSON Schema semantics is no concern.
        #expect(!reported("normalize"))
        // Two properties named `method` with different enums, in different scopes (the event enum, and the
        // Shipping struct): each keeps its name.
        let code = try #require(generator.files.first).contents
        #expect(code.components(separatedBy: "enum Method: String, Sendable, Hashable, CaseIterable {").count == 3)
    }
}
