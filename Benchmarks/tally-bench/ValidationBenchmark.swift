import TallyCore
import TallySchema

/// Decoding an NDJSON event line, and validating a typical event (5 properties, one pattern)
/// against a tracking plan: the two per-event costs of ingest besides the store.
enum ValidationBenchmark {
    struct Result {
        /// Median nanoseconds to decode one line into an envelope.
        var parse: Double
        /// Bytes per line, for the MB/s figure.
        var lineBytes: Int
        /// Median nanoseconds to validate and normalize one event.
        var validate: Double
    }

    static let plan = """
        {"feature": "episode", "description": "Bench plan.", "screens": ["episode_detail"], "events": [
          {"name": "episode_detail_play_tapped", "version": "1-0-0", "description": "Playback started.",
           "properties": {"type": "object", "properties": {
             "episode_id": {"type": "string", "pattern": "^ep-[0-9]+$"},
             "resume_at_seconds": {"type": "number", "minimum": 0},
             "downloaded": {"type": "boolean"},
             "playback_speed": {"type": "number", "exclusiveMinimum": 0, "maximum": 4},
             "player": {"type": "string", "enum": ["inline", "full_screen", "car_play"]}},
           "required": ["episode_id", "downloaded"], "additionalProperties": false}}]}
        """

    static func run(rounds: Int, perRound: Int, skipParse: Bool = false) throws -> Result {
        var problems: [SchemaError] = []
        let parsed = try JSONParser.parse(plan)
        guard let trackingPlan = TrackingPlanParser().parse(parsed, file: nil, problems: &problems) else {
            fatalError("bench plan: \(problems)")
        }
        let validator = EventValidator(registry: try SchemaRegistry(plans: [trackingPlan]))
        var generator = UUIDv7Generator()
        let now = Timestamp.now()
        // As track() delivers them: string values, normalized by the plan's declared types.
        let event = EventEnvelope(
            eventID: generator.next(at: now),
            name: "episode_detail_play_tapped",
            properties: EventProperties(strings: [
                "episode_id": "ep-4217", "resume_at_seconds": "312.5", "downloaded": "true", "playback_speed": "1.5",
                "player": "full_screen",
            ]),
            occurredAt: now,
            receivedAt: now,
            anonymousID: "9b2f4c1e-3d5a-4f6b-8c7d-0e1f2a3b4c5d",
            sessionID: "s-77"
        )
        precondition(validator.validate(event).isValid)
        // The line as a typed JSON source sends it (no `string_properties`), the same bytes as ever.
        var typedLine = event
        typedLine.stringProperties = false
        let line = Array(typedLine.ndjsonLine.dropLast())

        let decoder = EnvelopeDecoder()
        var parse = Samples(capacity: rounds)
        var validate = Samples(capacity: rounds)
        var sink = 0
        for _ in 0..<rounds {
            var start = monotonicNanoseconds()
            for _ in 0..<(skipParse ? 0 : perRound) {
                let decoded = line.withUnsafeBufferPointer {
                    try? decoder.decode($0, fallbackID: EventID(high: 0, low: 0))
                }
                if let decoded { sink &+= decoded.properties.count }
            }
            parse.append((monotonicNanoseconds() - start) * 1_000 / Int64(perRound))

            start = monotonicNanoseconds()
            for _ in 0..<perRound {
                sink &+= validator.validate(event).event.properties.count
            }
            validate.append((monotonicNanoseconds() - start) * 1_000 / Int64(perRound))
        }
        precondition(sink > 0)
        return Result(
            parse: Double(parse.median) / 1_000,
            lineBytes: line.count,
            validate: Double(validate.median) / 1_000
        )
    }
}
