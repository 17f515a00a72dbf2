import Foundation
import TallyCore

/// Maps the JSON Schema of a property to a Swift type, declaring enums and structs for `enum`s and
/// nested objects in the enclosing type's ``TypeNamespace``.
///
/// `$ref`s to the schema's own `definitions` / `$defs` are followed; a schema no single Swift type
/// expresses (a type list, `anyOf`, an object without declared properties, a recursive reference)
/// becomes a `String` sent as written, and is reported.
struct SchemaTypeMapper {
    /// The event's properties schema: what `#/…` references point into.
    let root: JSONValue
    /// The plan file's name, for diagnostics.
    let file: String
    var diagnostics: [CodegenDiagnostic] = []
    private var resolving: Set<String> = []

    init(root: JSONValue, file: String) {
        self.root = root
        self.file = file
    }

    /// The fields of an object schema's `properties`, in the plan's order.
    mutating func fields(
        of schema: JSONValue,
        path: String,
        scope: NameScope,
        namespace: TypeNamespace,
        prefix: String
    ) -> [SwiftField] {
        let object = resolve(schema, path: path) ?? schema
        let required = Set(object["required"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        var fields: [SwiftField] = []
        for member in object["properties"]?.objectMembers ?? [] {
            let propertyPath = path + ".properties." + member.key
            let identifier = scope.claim(
                member.key,
                convert: SwiftNames.lowerCamel,
                what: "property",
                file: file,
                path: propertyPath,
                diagnostics: &diagnostics
            )
            let type = self.type(
                of: member.value,
                name: member.key,
                path: propertyPath,
                namespace: namespace,
                prefix: prefix
            )
            let target = resolve(member.value, path: propertyPath) ?? member.value
            fields.append(
                SwiftField(
                    identifier: identifier,
                    key: member.key,
                    type: type,
                    isOptional: !required.contains(member.key),
                    documentation: Documentation.property(target, type: type)
                )
            )
        }
        return fields
    }

    /// The Swift type of `schema`, the value of the property `name`.
    mutating func type(
        of schema: JSONValue,
        name: String,
        path: String,
        namespace: TypeNamespace,
        prefix: String
    ) -> SwiftType {
        let reference = schema["$ref"]?.stringValue
        guard let schema = resolve(schema, path: path) else { return approximated(path, "a recursive $ref") }
        if case .bool = schema { return approximated(path, "a boolean schema") }
        if let reference { resolving.insert(reference) }
        defer { if let reference { resolving.remove(reference) } }
        if let values = schema["enum"]?.arrayValue ?? schema["const"].map({ [$0] }) {
            return enumeration(values, name: name, schema: schema, path: path, namespace: namespace, prefix: prefix)
        }
        var types = Self.types(of: schema)
        types.remove("null")
        if types == ["integer", "number"] { types = ["number"] }
        if types.isEmpty {
            if schema["properties"] != nil { types = ["object"] } else if schema["items"] != nil { types = ["array"] }
        }
        guard types.count == 1, let only = types.first else {
            return approximated(path, types.isEmpty ? "no type" : "the types \(types.sorted().joined(separator: ", "))")
        }
        if let keyword = ["anyOf", "oneOf", "allOf", "not", "if"].first(where: { schema[$0] != nil }) {
            return approximated(path, "\(keyword)")
        }
        switch only {
        case "string": return .string
        case "integer": return .int
        case "number": return .double
        case "boolean": return .bool
        case "object":
            guard let properties = schema["properties"]?.objectMembers, !properties.isEmpty else {
                return approximated(path, "an object without declared properties", json: true)
            }
            return structure(schema, name: name, path: path, namespace: namespace, prefix: prefix)
        case "array":
            guard let items = schema["items"], items.objectMembers != nil || items == .bool(true) else {
                return approximated(path, "an array without one item schema", json: true)
            }
            if items == .bool(true) { return .array(.fallback) }
            let element = type(
                of: items,
                name: name + "_item",
                path: path + ".items",
                namespace: namespace,
                prefix: prefix
            )
            return .array(element)
        default:
            return approximated(path, "the type \(only)")
        }
    }

    private mutating func structure(
        _ schema: JSONValue,
        name: String,
        path: String,
        namespace: TypeNamespace,
        prefix: String
    ) -> SwiftType {
        let scope = NameScope(reserved: ["tallyValue"])
        let inner = TypeNamespace(taken: [])
        let fields = self.fields(of: schema, path: path, scope: scope, namespace: inner, prefix: "")
        let documentation = Documentation.lines(schema["description"]?.stringValue ?? schema["title"]?.stringValue)
        let nested = inner.declarations
        let typeName = namespace.declare(
            { .structure(StructDeclaration(name: $0, documentation: documentation, fields: fields, nested: nested)) },
            name: name,
            prefix: prefix,
            file: file,
            path: path,
            diagnostics: &diagnostics
        )
        return .structure(name: typeName)
    }

    private mutating func enumeration(
        _ values: [JSONValue],
        name: String,
        schema: JSONValue,
        path: String,
        namespace: TypeNamespace,
        prefix: String
    ) -> SwiftType {
        let present = values.filter { $0 != .null }
        let raw: EnumRawType
        if !present.isEmpty, present.allSatisfy({ $0.stringValue != nil }) {
            raw = .string
        } else if !present.isEmpty, present.allSatisfy({ if case .number = $0 { true } else { false } }) {
            let integers = present.allSatisfy { value in
                if case .number(let number) = value {
                    number.isIntegerLiteral && number.int64Value != nil
                } else {
                    false
                }
            }
            raw = integers ? .int : .double
        } else {
            return approximated(path, "an enum of mixed or structured values")
        }
        let scope = NameScope()
        var cases: [EnumDeclaration.Case] = []
        for (index, value) in present.enumerated() {
            let text: String
            let literal: String
            switch value {
            case .string(let string):
                text = string
                literal = SwiftLiteral.string(string)
            case .number(let number):
                text =
                    "_"
                    + number.text.replacingOccurrences(of: "-", with: "minus").replacingOccurrences(of: ".", with: "_")
                literal = number.text
            default: continue
            }
            let identifier = scope.claim(
                text,
                convert: { text in
                    // Number cases are `_0_5`, as written: the usual conversion would drop the `_`.
                    raw == .string ? SwiftNames.lowerCamel(text) : SwiftNames.Conversion(identifier: text, note: nil)
                },
                what: "enum value",
                file: file,
                path: path + ".enum[\(index)]",
                diagnostics: &diagnostics
            )
            let needsRaw = raw != .string || identifier != text
            cases.append(EnumDeclaration.Case(identifier: identifier, rawLiteral: literal, needsRawValue: needsRaw))
        }
        let documentation = Documentation.lines(schema["description"]?.stringValue ?? schema["title"]?.stringValue)
        let typeName = namespace.declare(
            { .enumeration(EnumDeclaration(name: $0, documentation: documentation, raw: raw, cases: cases)) },
            name: name,
            prefix: prefix,
            file: file,
            path: path,
            diagnostics: &diagnostics
        )
        return .enumeration(name: typeName, raw: raw)
    }

    private mutating func approximated(_ path: String, _ reason: String, json: Bool = false) -> SwiftType {
        let sent = json ? "a String of JSON text, sent as its value" : "a String sent as written"
        diagnostics.append(CodegenDiagnostic(file: file, path: path, message: "\(reason): generated as \(sent)"))
        return json ? .jsonText : .fallback
    }

    /// `schema` with `$ref`s to this schema's definitions followed; nil for a reference cycle.
    private func resolve(_ schema: JSONValue, path: String) -> JSONValue? {
        var current = schema
        var seen: Set<String> = []
        while let reference = current["$ref"]?.stringValue {
            guard !resolving.contains(reference), seen.insert(reference).inserted else { return nil }
            guard let target = Self.pointer(reference, in: root) else { return current }
            current = target
        }
        return current
    }

    /// The value at a `#/a/b` JSON pointer in `root`.
    private static func pointer(_ reference: String, in root: JSONValue) -> JSONValue? {
        guard reference.hasPrefix("#") else { return nil }
        var value = root
        for token in reference.dropFirst().split(separator: "/", omittingEmptySubsequences: true) {
            let key = String(token).removingPercentEncoding ?? String(token)
            let unescaped = key.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            if let member = value[unescaped] {
                value = member
            } else if let index = Int(unescaped), let items = value.arrayValue, items.indices.contains(index) {
                value = items[index]
            } else {
                return nil
            }
        }
        return value
    }

    /// The `type` keyword as a set (empty when absent).
    static func types(of schema: JSONValue) -> Set<String> {
        switch schema["type"] {
        case .string(let type)?: [type]
        case .array(let types)?: Set(types.compactMap(\.stringValue))
        default: []
        }
    }
}

extension JSONValue {
    /// The elements, if this is an array.
    var arrayValue: [JSONValue]? {
        if case .array(let values) = self { values } else { nil }
    }
}
