import TallyCore
import TallyFormats
import TallySchema

/// Parse + validate of a Segment `Order Completed` track call with a three-item `products` array,
/// against its plan (an imported-style plan: names as sent, plain JSON Schema types): the per-event
/// cost of ingesting Segment data. Target ≤ 4 µs median.
enum SegmentEventBenchmark {
    struct Result {
        /// Median nanoseconds to map one line into an envelope (JSON tree, Segment mapping).
        var parse: Double
        /// Median nanoseconds to validate it against the plan, as ingest does (decode + validate, less decode).
        var validate: Double
        /// Bytes per line.
        var lineBytes: Int
    }

    static let plan = """
        {"feature": "shop", "description": "Segment e-commerce spec.", "naming": "as_sent", "normalize_strings": false,
         "events": [{"name": "Order Completed", "version": "1-0-0", "description": "An order was completed.",
           "properties": {"type": "object", "properties": {
             "order_id": {"type": "string"}, "affiliation": {"type": "string"},
             "total": {"type": "number", "minimum": 0}, "revenue": {"type": "number", "minimum": 0},
             "shipping": {"type": "number"}, "tax": {"type": "number"}, "discount": {"type": "number"},
             "coupon": {"type": ["string", "null"]}, "currency": {"type": "string", "pattern": "^[A-Z]{3}$"},
             "products": {"type": "array", "minItems": 1, "items": {"type": "object", "properties": {
               "product_id": {"type": "string"}, "sku": {"type": "string"}, "name": {"type": "string"},
               "price": {"type": "number", "minimum": 0}, "quantity": {"type": "integer", "minimum": 1},
               "category": {"type": "string"}}, "required": ["product_id", "price", "quantity"]}}},
           "required": ["order_id", "products"]}}]}
        """

    /// The Segment spec's example (https://segment.com/docs/connections/spec/ecommerce/v2/#order-completed),
    /// three products.
    static let line = #"""
        {"type":"track","event":"Order Completed","messageId":"ajs-next-1700000000000-8b3c1e2f-5d4a","userId":"user-1234","anonymousId":"507f191e810c19729de860ea","timestamp":"2026-11-20T10:00:00.123Z","sentAt":"2026-11-20T10:00:01.000Z","properties":{"order_id":"50314b8e9bcf000000000000","affiliation":"Google Store","total":27.50,"revenue":25.00,"shipping":3,"tax":2,"discount":2.5,"coupon":"hasbros","currency":"USD","products":[{"product_id":"507f1f77bcf86cd799439011","sku":"45790-32","name":"Monopoly: 3rd Edition","price":19,"quantity":1,"category":"Games"},{"product_id":"505bd76785ebb509fc183733","sku":"46493-32","name":"Uno Card Game","price":3,"quantity":2,"category":"Games"},{"product_id":"5d4a2f0c8e1b3a7f9c6d2e10","sku":"47012-08","name":"Catan","price":42.5,"quantity":1,"category":"Games"}]},"context":{"app":{"version":"4.2.0","build":"4217"},"os":{"name":"iOS","version":"17.1"},"locale":"en-US"}}
        """#

    static func run(rounds: Int, perRound: Int) throws -> Result {
        var problems: [SchemaError] = []
        guard let trackingPlan = TrackingPlanParser().parse(try JSONParser.parse(plan), file: nil, problems: &problems)
        else { fatalError("bench plan: \(problems)") }
        let validator = EventValidator(registry: try SchemaRegistry(plans: [trackingPlan]))
        let decoder = FormatDecoder(format: .segment)
        let bytes = Array(line.utf8)
        let event = try bytes.withUnsafeBufferPointer { try decoder.decode($0).results[0].get() }
        let verdict = validator.validate(event)
        precondition(verdict.isValid, "bench event: \(verdict.summary)")
        // Validation is timed as ingest runs it: on the envelope just decoded, which it owns (a
        // shared one would be copied on its first write). So the second loop decodes and
        // validates, and validation is the difference between the two loops' medians.
        var parse = Samples(capacity: rounds)
        var together = Samples(capacity: rounds)
        var sink = 0
        for _ in 0..<rounds {
            var start = monotonicNanoseconds()
            for _ in 0..<perRound {
                let decoded = bytes.withUnsafeBufferPointer { decoder.decode($0) }
                sink &+= decoded.results.count
            }
            parse.append((monotonicNanoseconds() - start) * 1_000 / Int64(perRound))
            start = monotonicNanoseconds()
            for _ in 0..<perRound {
                var results = bytes.withUnsafeBufferPointer { decoder.decode($0) }.results
                guard case .success(let event)? = results.popLast() else { fatalError("bench event refused") }
                sink &+= validator.validate(event).violations.count + 1
            }
            together.append((monotonicNanoseconds() - start) * 1_000 / Int64(perRound))
        }
        precondition(sink > 0)
        return Result(
            parse: Double(parse.median) / 1_000,
            validate: Double(together.median - parse.median) / 1_000,
            lineBytes: bytes.count
        )
    }
}
