import TallyCore
import TallyPipeline
import TallySchema
import TallyTestSupport
import Testing

@Suite("Pipeline errors")
struct PipelineErrorTests {
    @Test("codes and error classes print as their stable names (dead letters record them)")
    func stableNames() {
        let codes: [(PipelineError.Code, String)] = [
            (.closed, "closed"), (.alreadyRunning, "alreadyRunning"), (.invalidEvent, "invalidEvent"),
            (.timedOut, "timedOut"),
        ]
        for (code, name) in codes { #expect(code.description == name) }
        #expect(SinkErrorClass.transient.description == "transient")
        #expect(SinkErrorClass.permanent.description == "permanent")
        #expect(
            PipelineError(code: .timedOut, message: "write took longer than 5.0 seconds").description
                == "PipelineError(timedOut): write took longer than 5.0 seconds"
        )
    }

    @Test(
        "strict validation: the error names the event and the rule, never a property value",
        arguments: [
            ("episode_list_episode_selected", ["episode_id": "s3cr3t", "position": "1"]),
            ("episode_list_episode_selected", ["episode_id": "ep-1", "position": "s3cr3t"]),
            ("episode_list_episode_selected", ["episode_id": "ep-1", "position": "1", "password": "s3cr3t"]),
            ("episode_detail_viewed", ["episode_id": "ep-1", "source": "s3cr3t"]),
            ("episode_unknown_event", ["password": "s3cr3t"]),
        ]
    )
    func invalidEventHidesValues(name: String, properties: [String: String]) async throws {
        let registry = try SchemaRegistry.load(
            directory: ConformanceData.repositoryRoot!.appendingPathComponent("Examples/registry").path
        )
        let pipeline = EventPipeline(
            sinks: [],
            validation: EventValidation(validator: EventValidator(registry: registry), policy: .strict)
        )
        let event = EventEnvelope(
            eventID: EventID(high: 1, low: 1),
            name: name,
            properties: EventProperties(strings: properties),
            occurredAt: .now()
        )
        try await pipeline.running {
            let error = await #expect(throws: PipelineError.self) { try await pipeline.send(event) }
            #expect(error?.code == .invalidEvent)
            #expect(error.map { !$0.description.contains("s3cr3t") } == true, "\(String(describing: error))")
        }
    }
}
