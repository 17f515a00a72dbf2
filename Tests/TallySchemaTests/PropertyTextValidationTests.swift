import TallyCore
import TallySchema
import Testing

/// The validator's walk over properties kept in their text must give the verdict and the stored
/// event that the same properties give as pairs.
@Suite("Validation of properties kept in their text")
struct PropertyTextValidationTests {
    static let plan = """
        {"feature": "shop", "description": "An imported plan.", "naming": "as_sent", "normalize_strings": false,
         "events": [
          {"name": "Order Completed", "version": "1-0-0", "description": "d",
           "properties": {"type": "object", "properties": {
             "order_id": {"type": "string", "minLength": 2}, "coupon": {"type": ["string", "null"]},
             "total": {"type": "number", "minimum": 0}, "count": {"type": "integer"},
             "either": {"type": ["integer", "number"]}, "currency": {"type": "string", "pattern": "^[A-Z]{3}$"},
             "products": {"type": "array", "minItems": 1, "items": {"type": "object", "properties": {
               "sku": {"type": "string"}, "price": {"type": "number", "minimum": 0},
               "quantity": {"type": "integer", "minimum": 1}}, "required": ["sku", "price"]}}},
           "required": ["order_id"]}},
          {"name": "Closed", "version": "1-0-0", "description": "d",
           "properties": {"type": "object", "properties": {"a": {"type": "string"}},
             "additionalProperties": false}},
          {"name": "Open", "version": "1-0-0", "description": "d",
           "properties": {"type": "object", "properties": {"a": {"type": "integer"}},
             "additionalProperties": {"type": "integer"}}},
          {"name": "Composed", "version": "1-0-0", "description": "d",
           "properties": {"type": "object", "properties": {"a": {"type": "integer"}},
             "patternProperties": {"^x": {"type": "string"}}}}]}
        """

    static let cases: [(name: String, properties: String)] = [
        (
            "Order Completed",
            #"{"order_id":"o1","total":27.50,"currency":"USD","products":[{"sku":"a","price":1,"quantity":2}]}"#
        ),
        ("Order Completed", #"{"order_id":"o1","count":2.0,"either":3.0,"total":1e2}"#),
        ("Order Completed", #"{"order_id":"o1","either":3.0}"#),
        ("Order Completed", #"{"order_id":"o1","count":"2","coupon":null,"total":-1}"#),
        ("Order Completed", #"{"order_id":"o","currency":"usd","products":[]}"#),
        ("Order Completed", #"{"coupon":7,"products":[{"sku":"a"},{"price":-1,"sku":"b","quantity":0}]}"#),
        ("Order Completed", #"{"order_id":"o\u00e9","extra":{"x":[1,2]},"currency":"U\u0053D"}"#),
        (
            "Order Completed",
            #"{"order_id":"o1","products":[{"price":1,"sku":"a"},{"s\u006bu":"b","price":2},{"quantity":1,"sku":"c","price":3,"extra":[1,{"a":"b"}]},{"sku":"d","sku":"e","price":4}]}"#
        ),
        ("Order Completed", #"{ "products" : [ { "sku" : "a" , "price" : 1.5 } ] , "order_id" : "o1" }"#),
        ("Closed", #"{"a":"x"}"#),
        ("Closed", #"{"a":"x","b":1}"#),
        ("Open", #"{"a":1,"b":2,"c":2.0,"d":"x"}"#),
        ("Open", #"{"b":4.0}"#),
        ("Composed", #"{"a":1,"xs":"s","xn":1}"#),
        ("Composed", #"{"a":2.0,"xs":"s"}"#),
    ]

    @Test("every case: the same violations and the same stored line as the pairs")
    func sameVerdict() throws {
        let validator = try NestedPropertyTests.validator(Self.plan)
        for (name, properties) in Self.cases {
            let pairs = try NestedPropertyTests.event(name, properties)
            var text = pairs
            text.properties = try #require(
                Array(properties.utf8).withUnsafeBufferPointer { bytes in
                    var parser = JSONParser(bytes: bytes)
                    return parser.parsePropertyText()
                },
                "\(properties)"
            )
            let expected = validator.validate(pairs)
            let verdict = validator.validate(text)
            #expect(verdict.violations == expected.violations, "\(name) \(properties)")
            #expect(verdict.event.ndjsonLine == expected.event.ndjsonLine, "\(name) \(properties)")
            #expect(verdict.event == expected.event)
        }
    }
}
