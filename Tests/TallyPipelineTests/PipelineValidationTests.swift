import Foundation
import TallyCore
import TallyPipeline
import TallyPipelineTesting
import TallySchema
import TallyTestSupport
import Testing

@Suite("Pipeline validation")
struct PipelineValidationTests {
    static let registry = try! SchemaRegistry.load(
        directory: ConformanceData.repositoryRoot!.appendingPathComponent("Examples/registry").path
    )

    static func mixedBatch() -> (good: [EventEnvelope], bad: [EventEnvelope]) {
        var generator = UUIDv7Generator(seed: 3)
        func event(_ name: String, _ properties: [String: String]) -> EventEnvelope {
            EventEnvelope(
                eventID: generator.next(at: .now()),
                name: name,
                properties: EventProperties(strings: properties),
                occurredAt: .now()
            )
        }
        let good = (0..<50).map {
            event("episode_list_episode_selected", ["episode_id": "ep-\($0)", "position": "\($0)"])
        }
        let bad = [
            event("episode_list_episode_selected", ["episode_id": "ep-1", "position": "first"]),
            event("episode_list_scrolled", [:]),
            event("episode_list\u{7}viewed", [:]),  // a control character: no name may hold one
        ]
        return (good, bad)
    }

    @Test(
        "reject: a batch mixing good and bad events delivers every good one; each bad one is dead-lettered with its reason"
    )
    func rejectKeepsTheGoodOnes() async throws {
        let sink = InMemorySink()
        let deadLetters = InMemoryRejectSink()
        let pipeline = EventPipeline(
            sinks: [sink],
            deadLetters: deadLetters,
            validation: EventValidation(validator: EventValidator(registry: Self.registry))
        )
        let (good, bad) = Self.mixedBatch()
        var mixed = good
        mixed.insert(bad[0], at: 10)
        mixed.insert(bad[1], at: 20)
        mixed.append(bad[2])
        try await pipeline.running {
            try await pipeline.send(contentsOf: mixed)
        }
        #expect(sink.events.map(\.eventID) == good.map(\.eventID))
        #expect(
            sink.events.allSatisfy {
                $0.properties["position"].map { if case .integer = $0 { true } else { false } } == true
            }
        )
        #expect(sink.events.allSatisfy { $0.feature == "episode" && $0.schemaVersion == "1-0-0" })
        let rejects = deadLetters.rejects
        #expect(rejects.map(\.event?.eventID) == bad.map(\.eventID))
        #expect(rejects.allSatisfy { $0.origin == .sink(name: "validation", attempts: 0) })
        #expect(rejects.map(\.reason.code) == ["type_mismatch", "unknown_event", "invalid_name"])
        #expect(rejects[0].reason.path == "$.properties.position")
        #expect(pipeline.statistics.rejected == 3)
    }

    @Test("annotate: invalid events are kept with their violations recorded")
    func annotateKeepsEverything() async throws {
        let sink = InMemorySink()
        let pipeline = EventPipeline(
            sinks: [sink],
            validation: EventValidation(validator: EventValidator(registry: Self.registry), policy: .annotate)
        )
        let (good, bad) = Self.mixedBatch()
        try await pipeline.running {
            try await pipeline.send(contentsOf: good + bad)
        }
        #expect(sink.eventCount == good.count + bad.count)
        #expect(sink.events.filter { $0.violations != nil }.map(\.eventID) == bad.map(\.eventID))
        #expect(sink.events.last?.violations?.first?.hasPrefix("invalid_name") == true)
        #expect(pipeline.statistics.annotated == 3)
    }

    @Test("strict: an invalid event fails at the call site")
    func strictFailsLoudly() async throws {
        let pipeline = EventPipeline(
            sinks: [InMemorySink()],
            validation: EventValidation(validator: EventValidator(registry: Self.registry), policy: .strict)
        )
        let (good, bad) = Self.mixedBatch()
        try await pipeline.running {
            try await pipeline.send(good[0])
            let error = await #expect(throws: PipelineError.self) { try await pipeline.send(bad[0]) }
            #expect(error?.code == .invalidEvent)
        }
    }
}
