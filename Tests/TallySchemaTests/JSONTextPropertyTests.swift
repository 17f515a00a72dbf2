import TallyCore
import TallySchema
import Testing

/// Nested values through `TrackingEventContract`, whose properties are strings: generated structs
/// and arrays send their JSON text, which plans that normalize strings read as the object or array
/// they declare.
@Suite("JSON text for nested properties")
struct JSONTextPropertyTests {
    static let plan = """
        {"feature": "shop", "description": "d", "screens": ["cart"],
         "events": [{"name": "cart_checked_out", "version": "1-0-0", "description": "d",
           "properties": {"type": "object", "properties": {
             "products": {"type": "array", "items": {"type": "object", "properties": {
               "sku": {"type": "string"}, "quantity": {"type": "integer", "minimum": 1}}, "required": ["sku"]}},
             "address": {"type": "object", "properties": {"city": {"type": "string"}}},
             "note": {"type": ["string", "object"]}},
           "required": ["products"], "additionalProperties": false}}]}
        """

    @Test("a string holding a JSON array or object becomes that value, and is validated in depth")
    func containersFromText() throws {
        let validator = try NestedPropertyTests.validator(Self.plan)
        var good = try NestedPropertyTests.event(
            "cart_checked_out",
            #"{"products":"[{\"sku\":\"a\",\"quantity\":2}]","address":"{\"city\":\"Lyon\"}","note":"{\"x\":1}"}"#
        )
        // From a typed source (JSON), a string is a string: no array, no object.
        #expect(validator.validate(good).codes == [.typeMismatch, .typeMismatch])
        good.stringProperties = true
        let verdict = validator.validate(good)
        #expect(verdict.isValid, "\(verdict.summary)")
        #expect(verdict.event.properties["products"]?.jsonValue.typeName == "array")
        #expect(verdict.event.properties["address"]?.jsonValue.typeName == "object")
        // A type list that allows strings keeps the string: nothing is inferred.
        #expect(verdict.event.properties["note"]?.jsonValue.typeName == "string")

        var bad = try NestedPropertyTests.event(
            "cart_checked_out",
            #"{"products":"[{\"quantity\":0}]","address":"not json"}"#
        )
        bad.stringProperties = true
        let paths = Set(validator.validate(bad).violations.map(\.path))
        #expect(paths.contains("$.properties.products[0].sku"))
        #expect(paths.contains("$.properties.products[0].quantity"))
        #expect(paths.contains("$.properties.address"))
    }
}
