import TallyCore

/// `$ref` within the document: JSON pointers and plain-name fragments, resolved at compile time.
extension SchemaCompilation {
    /// The reference of the `$ref` keyword `value` of the schema at `node`.
    func reference(_ value: JSONValue, at node: Location) throws(SchemaError) -> SchemaReference {
        let path = node.path("$ref")
        guard let text = value.stringValue else {
            throw SchemaError(.invalidKeyword, path: path, message: "$ref must be a string")
        }
        guard text.hasPrefix("#") else {
            throw SchemaError(
                .unsupportedKeyword,
                path: path,
                message: "$ref \(text.debugDescription) points outside this schema; only local references (#…) "
                    + "are supported"
            )
        }
        guard let fragment = Self.percentDecoded(text.dropFirst()) else {
            throw SchemaError(.invalidKeyword, path: path, message: "$ref \(text.debugDescription) is not a valid URI")
        }
        let resource = resourceRoot(of: node)
        let targetTokens: [String]
        if fragment.isEmpty || fragment.hasPrefix("/") {
            guard let tokens = Self.pointerTokens(fragment) else {
                throw SchemaError(
                    .invalidKeyword,
                    path: path,
                    message: "$ref \(text.debugDescription) is not a valid JSON pointer"
                )
            }
            targetTokens = resource + tokens
        } else {
            guard let tokens = anchor(fragment, in: resource) else {
                throw SchemaError(
                    .invalidKeyword,
                    path: path,
                    message: "$ref \(text.debugDescription): no subschema has this \(idKeyword)"
                )
            }
            targetTokens = tokens
        }
        guard let (target, location) = locate(targetTokens) else {
            throw SchemaError(.invalidKeyword, path: path, message: "$ref \(text.debugDescription) points to nothing")
        }
        let reference = SchemaReference(text)
        referencePaths[ObjectIdentifier(reference)] = path
        if let schema = compiled[location.pointer] {
            reference.resolve(to: schema)
        } else if inProgress.contains(location.pointer) {
            // Recursive: the target is an enclosing schema, finished later.
            waiting[location.pointer, default: []].append(reference)
        } else {
            reference.resolve(to: subschema(target, at: location))
        }
        return reference
    }

    private var idKeyword: String { dialect == .draft04 ? "id" : "$id" }

    /// The value and location at `tokens` from the document root, if there is one.
    func locate(_ tokens: [String]) -> (JSONValue, Location)? {
        var value = document
        var location = Location(path: documentPath, tokens: [], pointer: "")
        for token in tokens {
            switch value {
            case .object:
                guard let next = value[token] else { return nil }
                value = next
                location = location.member(token)
            case .array(let elements):
                guard let index = Self.arrayIndex(token), index < elements.count else { return nil }
                value = elements[index]
                location = location.element(index)
            default:
                return nil
            }
        }
        return (value, location)
    }

    /// The tokens of the schema that `#…` means for a `$ref` at `node`: the nearest enclosing
    /// schema whose `$id` is a URI (it starts a new resource), else the document.
    private func resourceRoot(of node: Location) -> [String] {
        var root: [String] = []
        var value = document
        // The schema holding the $ref itself is not checked: its $id is a sibling of $ref, ignored.
        for (depth, token) in node.tokens.enumerated() {
            if depth > 0, startsResource(value) { root = Array(node.tokens[..<depth]) }
            switch value {
            case .object: value = value[token] ?? .null
            case .array(let elements):
                value = Self.arrayIndex(token).flatMap { elements.indices.contains($0) ? elements[$0] : nil } ?? .null
            default: return root
            }
        }
        return root
    }

    private func startsResource(_ value: JSONValue) -> Bool {
        guard let id = value[idKeyword]?.stringValue else { return false }
        return !id.hasPrefix("#") && value["$ref"] == nil
    }

    /// The subschema of the resource at `resource` whose `$id` is `#name`, outside nested resources.
    private func anchor(_ name: String, in resource: [String]) -> [String]? {
        guard let (root, _) = locate(resource) else { return nil }
        var found: [String]?
        func search(_ value: JSONValue, at tokens: [String], isResourceRoot: Bool) {
            guard found == nil, case .object = value else { return }
            if let id = value[idKeyword]?.stringValue, value["$ref"] == nil {
                if id == "#" + name {
                    found = tokens
                    return
                }
                if !isResourceRoot, !id.hasPrefix("#") { return }
            }
            Self.forEachSubschema(of: value) { relative, subschema in
                search(subschema, at: tokens + relative, isResourceRoot: false)
            }
        }
        search(root, at: resource, isResourceRoot: true)
        return found
    }

    /// Calls `body` with the relative pointer tokens and value of each direct subschema of `value`.
    static func forEachSubschema(of value: JSONValue, _ body: ([String], JSONValue) -> Void) {
        func isSchema(_ value: JSONValue) -> Bool {
            switch value {
            case .object, .bool: true
            default: false
            }
        }
        for keyword in singleSubschemaKeywords {
            if let subschema = value[keyword], isSchema(subschema) { body([keyword], subschema) }
        }
        for keyword in subschemaListKeywords {
            guard case .array(let elements)? = value[keyword] else { continue }
            for (index, element) in elements.enumerated() { body([keyword, String(index)], element) }
        }
        for keyword in subschemaMapKeywords {
            for member in value[keyword]?.objectMembers ?? [] where isSchema(member.value) {
                body([keyword, member.key], member.value)
            }
        }
    }

    static let singleSubschemaKeywords = [
        "items", "additionalItems", "contains", "additionalProperties", "propertyNames", "not", "if", "then", "else",
    ]
    static let subschemaListKeywords = ["items", "allOf", "anyOf", "oneOf"]
    static let subschemaMapKeywords = [
        "properties", "patternProperties", "dependencies", "dependentSchemas", "definitions", "$defs",
    ]

    /// A URI fragment with its percent-escapes decoded, or nil when they are not valid UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(EventID.hexDigitValue),
                let low = iterator.next().flatMap(EventID.hexDigitValue)
            else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        let decoded = String(decoding: bytes, as: UTF8.self)
        // Invalid UTF-8 decodes to replacement characters, which change the bytes.
        return decoded.utf8.elementsEqual(bytes) ? decoded : nil
    }

    /// The unescaped tokens of an RFC 6901 JSON pointer (`""` is the whole document).
    static func pointerTokens(_ pointer: String) -> [String]? {
        if pointer.isEmpty { return [] }
        guard pointer.hasPrefix("/") else { return nil }
        var tokens: [String] = []
        for raw in pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            var token = ""
            var isEscape = false
            for scalar in raw.unicodeScalars {
                if isEscape {
                    switch scalar {
                    case "0": token += "~"
                    case "1": token += "/"
                    default: return nil
                    }
                    isEscape = false
                } else if scalar == "~" {
                    isEscape = true
                } else {
                    token.unicodeScalars.append(scalar)
                }
            }
            if isEscape { return nil }
            tokens.append(token)
        }
        return tokens
    }

    /// An array index token: `0` or digits without a leading zero.
    static func arrayIndex(_ token: String) -> Int? {
        guard let first = token.utf8.first, first != UInt8(ascii: "0") || token.utf8.count == 1,
            token.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int(token)
    }
}
