package import TallyCore

/// Turns JSON Schema documents into ``JSONSchema`` values, refusing what tally does not support.
///
/// `$ref` resolves within the value being compiled: a JSON pointer (`#`, `#/definitions/item`,
/// `#/properties/a~1b`, percent-encoded or not) or a plain-name fragment (`#item`) naming a
/// subschema's `$id` (`id` in draft-04). A nested `$id` with a URI starts a new resource: pointers
/// inside it are relative to it. References to other documents (`http://…`, `item.json`) are
/// refused with their path, as is any keyword tally does not know.
package struct SchemaCompiler: Sendable {
    /// Which JSON Schema draft's spelling of the keywords to accept.
    package enum Dialect: Sendable {
        /// `exclusiveMinimum`/`exclusiveMaximum` are booleans modifying `minimum`/`maximum`; no
        /// boolean schemas and none of draft-07's `const`, `contains`, `propertyNames`, `if`.
        case draft04
        /// `exclusiveMinimum`/`exclusiveMaximum` are numbers; `const`, `contains`,
        /// `propertyNames`, `if`/`then`/`else` and boolean schemas exist. The 2019-09 spellings
        /// `dependentRequired`, `dependentSchemas` and `$defs` are accepted too.
        case draft07
    }

    /// The dialect.
    package var dialect: Dialect
    /// Whether tally's own plan keywords (``personalDataKeyword``) are accepted: true for the
    /// properties of a tracking plan's events, false for plain JSON Schema (they are then refused).
    package var tallyKeywords: Bool

    /// A compiler for `dialect`.
    package init(dialect: Dialect = .draft07, tallyKeywords: Bool = false) {
        self.dialect = dialect
        self.tallyKeywords = tallyKeywords
    }

    /// `"x-tally-personal-data": "remove" | "hash"` on a property's schema (see ``PersonalDataRule``).
    static let personalDataKeyword = "x-tally-personal-data"

    static let annotations: Set<String> = [
        "$schema", "$id", "id", "$comment", "title", "description", "default", "examples",
    ]

    /// The keywords both drafts have.
    static let supported: Set<String> = [
        "type", "enum", "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
        "multipleOf", "minLength", "maxLength",
        "items", "additionalItems", "minItems", "maxItems", "uniqueItems",
        "required", "properties", "patternProperties", "additionalProperties", "minProperties", "maxProperties",
        "dependencies", "allOf", "anyOf", "oneOf", "not", "$ref", "definitions", "$defs",
    ]

    /// The keywords only draft-07 (or, for the dependent ones, 2019-09) has.
    static let draft07Only: Set<String> = [
        "const", "contains", "propertyNames", "if", "then", "else", "dependentRequired", "dependentSchemas",
    ]

    /// Compiles `value`, naming problems by their JSON path under `path`.
    /// - Throws: the first problem; ``compileReportingAll(_:path:)`` gives every one.
    package func compile(_ value: JSONValue, path: String = "$") throws(SchemaError) -> JSONSchema {
        let compilation = SchemaCompilation(dialect: dialect, document: value, path: path)
        let schema = try compilation.run()
        if let first = compilation.problems.first { throw first }
        return schema
    }

    /// Compiles `value`, returning every problem found instead of the first, and the schema as far
    /// as it could be compiled (use it only when there are no problems).
    package func compileReportingAll(_ value: JSONValue, path: String = "$") -> (
        schema: JSONSchema?, problems: [SchemaError]
    ) {
        let result = compileMarkingPersonalData(value, path: path)
        return (result.schema, result.problems)
    }

    /// ``compileReportingAll(_:path:)``, with the schemas that carry ``personalDataKeyword`` (by
    /// identity) and the keyword's path and action.
    func compileMarkingPersonalData(_ value: JSONValue, path: String = "$") -> (
        schema: JSONSchema?, problems: [SchemaError],
        personalData: [ObjectIdentifier: (path: String, action: PersonalDataAction)]
    ) {
        let compilation = SchemaCompilation(dialect: dialect, document: value, path: path)
        compilation.tallyKeywords = tallyKeywords
        do {
            let schema = try compilation.run()
            // With problems, the schema is what could be compiled: good enough for further checks.
            return (schema, compilation.problems, compilation.personalDataMarks)
        } catch {
            return (nil, compilation.problems + [error], compilation.personalDataMarks)
        }
    }
}
