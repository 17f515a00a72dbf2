import Foundation
import TallyCore
import TallySchema
import Testing

/// Paths, messages and refusals of the composite keywords, beyond the conformance suite's verdicts.
@Suite("JSON Schema keywords")
struct JSONSchemaKeywordTests {
    static func schema(_ text: String, dialect: SchemaCompiler.Dialect = .draft07) throws -> JSONSchema {
        try SchemaCompiler(dialect: dialect).compile(try JSONParser.parse(text))
    }

    static func refusal(_ text: String, dialect: SchemaCompiler.Dialect = .draft07) throws -> SchemaError? {
        do {
            _ = try schema(text, dialect: dialect)
            return nil
        } catch let error as SchemaError {
            return error
        }
    }

    static let cart = """
        {"type": "object", "required": ["products"], "additionalProperties": false,
         "properties": {"products": {"type": "array", "minItems": 1, "items": {
           "type": "object", "required": ["sku", "price"], "additionalProperties": false,
           "properties": {"sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]+$"},
                          "price": {"type": "number", "minimum": 0, "multipleOf": 0.01},
                          "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true}}}}}}
        """

    @Test("violations in nested arrays of objects name the JSON path and the rule, never the value")
    func nestedPaths() throws {
        let schema = try Self.schema(Self.cart)
        let value = try JSONParser.parse(
            #"{"products": [{"sku": "ABC-1", "price": 19.99}, {"price": -4.005, "colour": "red-secret"},"#
                + #" {"sku": "lower-7", "price": 3, "tags": ["a", "b", "a"]}]}"#
        )
        let found = Set(schema.violations(of: value).map { "\($0.keyword.rawValue) \($0.path): \($0.message)" })
        #expect(
            found == [
                "required $.products[1].sku: is required",
                "minimum $.products[1].price: must be at least 0.0",
                "multipleOf $.products[1].price: must be a multiple of 0.01",
                "additionalProperties $.products[1].colour: is not declared in the schema",
                "pattern $.products[2].sku: does not match ^[A-Z]{3}-[0-9]+$",
                "uniqueItems $.products[2].tags: items 0 and 2 are equal",
            ]
        )
        for violation in schema.violations(of: value) {
            #expect(!violation.message.contains("4.005") && !violation.message.contains("secret"))
            #expect(!violation.message.contains("lower-7"))
        }
        #expect(schema.violations(of: try JSONParser.parse(#"{"products": []}"#)).map(\.keyword) == [.minItems])
    }

    @Test("a property schema validates a value on its own, under the caller's path")
    func propertySchema() throws {
        let products = try #require(try Self.schema(Self.cart).property("products"))
        #expect(!products.isScalarOnly)
        let violations = products.violations(
            of: try JSONParser.parse(#"[{"sku": "ABC-1"}]"#),
            path: "$.properties.products"
        )
        #expect(violations.map(\.path) == ["$.properties.products[0].price"])
    }

    @Test("a required property declared string rejects null")
    func requiredStringRejectsNull() throws {
        let schema = try Self.schema(
            #"{"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}"#
        )
        let violations = schema.violations(of: try JSONParser.parse(#"{"name": null}"#))
        #expect(violations.map(\.keyword) == [.type])
        #expect(violations.first?.path == "$.name")
        #expect(violations.first?.message == "expected string, got null")
        #expect(schema.violations(of: try JSONParser.parse("{}")).map(\.path) == ["$.name"])
        #expect(schema.accepts(try JSONParser.parse(#"{"name": ""}"#)))
        // And through the event validator, for events of a plan.
        let plan = """
            {"feature": "shop", "description": "A shop.", "screens": ["cart"], "events": [{"name": "cart_viewed",
              "version": "1-0-0", "description": "d", "properties": {"type": "object",
              "properties": {"name": {"type": "string"}}, "required": ["name"]}}]}
            """
        let directory = try Fixtures.registry(["shop.json": plan])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let validator = EventValidator(registry: try SchemaRegistry.load(directory: directory))
        // The scalar fast path once let null through (a bare `nil` that became `PropertyValue.null`).
        #expect(validator.validate(Fixtures.event("cart_viewed", ["name": .null])).codes == [.typeMismatch])
        #expect(validator.validate(Fixtures.event("cart_viewed", ["name": "cart"])).isValid)
    }

    static let tree = """
        {"$ref": "#/definitions/node",
         "definitions": {"node": {"type": "object", "required": ["value"], "additionalProperties": false,
           "properties": {"value": {"type": "integer"},
                          "children": {"type": "array", "items": {"$ref": "#/definitions/node"}}}}}}
        """

    @Test("$ref recursion: a tree validates at any depth, with the path of the failing node")
    func recursiveReference() throws {
        let schema = try Self.schema(Self.tree)
        let good = try JSONParser.parse(
            #"{"value": 1, "children": [{"value": 2, "children": [{"value": 3}, {"value": 4, "children": []}]}]}"#
        )
        #expect(schema.accepts(good))
        let bad = try JSONParser.parse(
            #"{"value": 1, "children": [{"value": 2, "children": [{"value": 3}, {"value": 4.5, "children": [{}]}]}]}"#
        )
        #expect(
            schema.violations(of: bad).map { "\($0.keyword.rawValue) \($0.path)" } == [
                "type $.children[0].children[1].value", "required $.children[0].children[1].children[0].value",
            ]
        )
        // The root itself, through "#": a linked list.
        let list = try Self.schema(
            ##"{"type": "object", "properties": {"next": {"$ref": "#"}, "n": {"type": "integer"}}}"##
        )
        #expect(list.accepts(try JSONParser.parse(#"{"n": 1, "next": {"n": 2, "next": {"n": 3}}}"#)))
        #expect(
            list.violations(of: try JSONParser.parse(#"{"next": {"next": {"n": "3"}}}"#)).map(\.path) == [
                "$.next.next.n"
            ]
        )
    }

    @Test("a recursive schema is shared by concurrent validations")
    func recursiveSchemaAcrossTasks() async throws {
        let schema = try Self.schema(Self.tree)
        let value = try JSONParser.parse(#"{"value": 1, "children": [{"value": 2, "children": [{"value": "x"}]}]}"#)
        let counts = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 { group.addTask { schema.violations(of: value).count } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(counts == Array(repeating: 1, count: 8))
    }

    @Test("pointer escapes, percent-encoding, $defs and plain-name $id resolve; $ref siblings are ignored")
    func referenceForms() throws {
        let schema = try Self.schema(
            """
            {"$defs": {"a/b": {"type": "integer"}, "m~n": {"type": "string"}, "q\\"r": {"type": "boolean"},
                       "anchored": {"$id": "#positive", "minimum": 0}},
             "properties": {"slash": {"$ref": "#/$defs/a~1b"}, "tilde": {"$ref": "#/$defs/m~0n"},
                            "quote": {"$ref": "#/$defs/q%22r"}, "anchor": {"$ref": "#positive"},
                            "sibling": {"$ref": "#/$defs/a~1b", "maximum": 1},
                            "copy": {"$ref": "#/properties/slash"}}}
            """
        )
        #expect(
            schema.accepts(
                try JSONParser.parse(
                    #"{"slash": 1, "tilde": "x", "quote": true, "anchor": 5, "sibling": 7, "copy": 2}"#
                )
            )
        )
        for bad in [#"{"slash": "1"}"#, #"{"tilde": 1}"#, #"{"quote": 1}"#, #"{"anchor": -1}"#, #"{"copy": 1.5}"#] {
            #expect(!schema.accepts(try JSONParser.parse(bad)), "\(bad)")
        }
    }

    @Test("a nested $id with a URI starts a resource: # inside it means that subschema")
    func nestedResource() throws {
        let schema = try Self.schema(
            ##"""
            {"definitions": {"inner": {"type": "integer"}},
             "properties": {"outer": {"$ref": "#/definitions/inner"},
                            "foo": {"$id": "http://example.com/foo.json", "definitions": {"inner": {"type": "string"}},
                                    "properties": {"bar": {"$ref": "#/definitions/inner"}}}}}
            """##
        )
        #expect(schema.accepts(try JSONParser.parse(#"{"outer": 1, "foo": {"bar": "x"}}"#)))
        #expect(!schema.accepts(try JSONParser.parse(#"{"foo": {"bar": 1}}"#)))
        #expect(!schema.accepts(try JSONParser.parse(#"{"outer": "x"}"#)))
    }

    @Test("a $ref to another document is refused with its path")
    func remoteReferenceRefused() throws {
        for ref in ["http://example.com/schemas/price.json", "price.json#/definitions/amount", "urn:x:y"] {
            let error = try #require(try Self.refusal(#"{"properties": {"price": {"$ref": "\#(ref)"}}}"#))
            #expect(error.code == .unsupportedKeyword)
            #expect(error.path == "$.properties.price.$ref")
        }
        let missing = try #require(try Self.refusal(##"{"items": [{"$ref": "#/definitions/nothing"}]}"##))
        #expect(missing.code == .invalidKeyword)
        #expect(missing.path == "$.items[0].$ref")
    }

    @Test("unknown keywords and other drafts' keywords are refused with their path, never ignored")
    func unknownKeywordRefused() throws {
        let unknown = try #require(
            try Self.refusal(#"{"properties": {"a": {"type": "array", "items": {"unevaluatedProperties": false}}}}"#)
        )
        #expect(unknown.code == .unsupportedKeyword)
        #expect(unknown.path == "$.properties.a.items.unevaluatedProperties")
        let draft7Only = try #require(try Self.refusal(#"{"anyOf": [{"contains": {}}]}"#, dialect: .draft04))
        #expect(draft7Only.code == .unsupportedKeyword)
        #expect(draft7Only.path == "$.anyOf[0].contains")
        // Every problem, for lint: the definitions too, even unused ones.
        let all = SchemaCompiler().compileReportingAll(
            try JSONParser.parse(
                #"{"definitions": {"x": {"maxContains": 1}}, "oneOf": [{"format": "iri"}, {"if": {"$ref": "x.json"}}]}"#
            )
        )
        #expect(
            Set(all.problems.map(\.path)) == ["$.definitions.x.maxContains", "$.oneOf[0].format", "$.oneOf[1].if.$ref"]
        )
    }

    @Test("a $ref cycle that never reaches into the value is refused")
    func referenceCycleRefused() throws {
        for text in [
            ##"{"$ref": "#"}"##, ##"{"anyOf": [{"type": "string"}, {"$ref": "#"}]}"##,
            ##"{"definitions": {"a": {"$ref": "#/definitions/b"}, "b": {"allOf": [{"$ref": "#/definitions/a"}]}}}"##,
        ] {
            let error = try #require(try Self.refusal(text), "\(text)")
            #expect(error.code == .invalidKeyword)
            #expect(error.message.contains("never end"))
        }
        // Through a property it ends: the value is finite.
        #expect(try Self.refusal(##"{"anyOf": [{"type": "string"}, {"properties": {"a": {"$ref": "#"}}}]}"##) == nil)
    }

    @Test("multipleOf is exact on decimals and huge numbers")
    func multipleOf() throws {
        let cents = try Self.schema(#"{"multipleOf": 0.01}"#)
        for (text, valid) in [("19.99", true), ("0.3", true), ("1e3", true), ("19.999", false), ("1e-3", false)] {
            #expect(cents.accepts(try JSONParser.parse(text)) == valid, "\(text)")
        }
        let tenth = try Self.schema(#"{"multipleOf": 0.1}"#)
        #expect(tenth.accepts(try JSONParser.parse("0.3")))  // 0.3 / 0.1 is 2.9999999999999996 in binary
        let seven = try Self.schema(#"{"multipleOf": 7}"#)
        #expect(seven.accepts(try JSONParser.parse("700000000000000000000000000000000000000000000000007")))
        #expect(!seven.accepts(try JSONParser.parse("700000000000000000000000000000000000000000000000008")))
        #expect(try Self.refusal(#"{"multipleOf": 0}"#)?.code == .invalidKeyword)
        #expect(try Self.refusal(#"{"multipleOf": 1.2345678901234567890123}"#)?.code == .unsupportedKeyword)
    }

    @Test("composition and array messages name the rule")
    func compositionMessages() throws {
        let schema = try Self.schema(
            #"{"oneOf": [{"type": "integer"}, {"minimum": 2}], "not": {"const": 7}, "contains": {"const": 1}}"#
        )
        #expect(schema.violations(of: try JSONParser.parse("3")).map(\.keyword) == [.oneOf])
        #expect(schema.violations(of: try JSONParser.parse("7")).map(\.keyword) == [.oneOf, .not])
        #expect(
            schema.violations(of: try JSONParser.parse("1.5")).map(\.message) == [
                "matches none of the 2 schemas in oneOf, exactly one is required"
            ]
        )
        #expect(
            schema.violations(of: try JSONParser.parse("[2]")).map(\.message) == ["no item matches the contains schema"]
        )
        let dependent = try Self.schema(
            #"{"required": ["card"], "dependentRequired": {"card": ["cvc"]}, "propertyNames": {"maxLength": 4}}"#
        )
        #expect(dependent.violations(of: try JSONParser.parse("{}")).map(\.description) == ["$.card: is required"])
        #expect(
            dependent.violations(of: try JSONParser.parse(#"{"card": 1, "coupon": 2}"#)).map(\.description) == [
                "$.coupon: the property name: longer than 4", "$.cvc: is required when card is present",
            ]
        )
    }

    @Test("isScalarOnly: true only for schemas the scalar fast path checks completely")
    func scalarOnly() throws {
        for text in [
            #"{"type": "string", "pattern": "^a", "maxLength": 3, "format": "date"}"#,
            #"{"type": ["integer", "null"], "minimum": 0, "exclusiveMaximum": 10, "enum": [1, 2, null]}"#, "{}", "true",
            #"{"type": "array"}"#, #"{"then": {"type": "string"}}"#,
        ] {
            #expect(try Self.schema(text).isScalarOnly, "\(text)")
        }
        for text in [
            "false", #"{"multipleOf": 2}"#, #"{"items": {}}"#, #"{"required": ["a"]}"#, #"{"properties": {"a": {}}}"#,
            #"{"additionalProperties": false}"#, #"{"anyOf": [{}]}"#, #"{"minProperties": 1}"#,
            ##"{"definitions": {"a": {}}, "$ref": "#/definitions/a"}"##, ##"{"if": {}}"##,
        ] {
            #expect(try !Self.schema(text).isScalarOnly, "\(text)")
        }
    }
}
