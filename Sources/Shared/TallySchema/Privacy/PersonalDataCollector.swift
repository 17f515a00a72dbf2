import TallyCore

/// Finds the personal-data marks of an event's properties schema (``SchemaCompiler/personalDataKeyword``)
/// and turns them into ``PersonalDataRule``s, refusing marks the device could not apply soundly.
///
/// A mark belongs on the schema of a property: of the event, of a nested object, or of array
/// elements (`items`), reached through `properties`, `items` and `$ref` only. Inside a composition
/// (`anyOf`, `if`, …) or an unused definition, or inside a property already marked, it is refused:
/// which values it covers would depend on the data.
struct PersonalDataCollector {
    /// The marks the compiler found, by schema identity.
    let marks: [ObjectIdentifier: (path: String, action: PersonalDataAction)]
    let file: String?
    private(set) var rules: [PersonalDataRule] = []
    private(set) var problems: [SchemaError] = []
    private var reached = Set<ObjectIdentifier>()

    /// What a hashed value looks like on the wire (the SHA-256 of the empty string): a property's
    /// schema must accept it, since the plan describes the event as the collector receives it.
    static let sampleDigest = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    init(marks: [ObjectIdentifier: (path: String, action: PersonalDataAction)], file: String?) {
        self.marks = marks
        self.file = file
    }

    /// Collects the rules under `root` (the event's properties schema), then refuses every mark
    /// not reached.
    mutating func collect(from root: JSONSchema) {
        guard !marks.isEmpty else { return }
        var stack = Set<ObjectIdentifier>()
        visitChildren(of: root, steps: [], stack: &stack)
        for (identity, mark) in marks.sorted(by: { $0.value.path < $1.value.path }) where !reached.contains(identity) {
            problems.append(
                SchemaError(
                    .invalidKeyword,
                    file: file,
                    path: mark.path,
                    message: "x-tally-personal-data belongs on the schema of a property (of the event, of a nested "
                        + "object or of array elements), reached through properties, items and $ref only, "
                        + "and not inside a property already marked"
                )
            )
        }
    }

    private mutating func visitChildren(
        of schema: JSONSchema,
        steps: [PersonalDataRule.Step],
        stack: inout Set<ObjectIdentifier>
    ) {
        let target = Self.resolved(schema)
        // A recursive schema: each level is visited once per path.
        guard stack.insert(ObjectIdentifier(target)).inserted else { return }
        defer { stack.remove(ObjectIdentifier(target)) }
        for (name, child) in target.properties {
            visit(child, steps: steps + [.key(name)], isRequired: target.required.contains(name), stack: &stack)
        }
        switch target.arrayKeywords?.items {
        case .every(let child)?: visit(child, steps: steps + [.everyElement], isRequired: false, stack: &stack)
        case .tuple(let children)?:
            for (index, child) in children.enumerated() {
                visit(child, steps: steps + [.element(index)], isRequired: false, stack: &stack)
            }
        case nil: break
        }
    }

    private mutating func visit(
        _ schema: JSONSchema,
        steps: [PersonalDataRule.Step],
        isRequired: Bool,
        stack: inout Set<ObjectIdentifier>
    ) {
        let marked = [schema, Self.resolved(schema)].first { marks[ObjectIdentifier($0)] != nil }
        guard let marked, let mark = marks[ObjectIdentifier(marked)] else {
            visitChildren(of: schema, steps: steps, stack: &stack)
            return
        }
        reached.insert(ObjectIdentifier(marked))
        func refuse(_ message: String) {
            problems.append(SchemaError(.invalidKeyword, file: file, path: mark.path, message: message))
        }
        switch mark.action {
        case .remove:
            guard case .key = steps.last else {
                return refuse("remove applies to an object member; mark the array property itself to remove it")
            }
            if isRequired {
                return refuse("a removed property cannot be required: the collector would refuse every event")
            }
        case .hash:
            if !marked.accepts(.string(Self.sampleDigest)) {
                return refuse(
                    "a hashed property arrives as 64 lowercase hex digits (SHA-256); its schema must accept them "
                        + "(e.g. {\"type\": \"string\"}), as the plan describes the event the collector receives"
                )
            }
        }
        rules.append(PersonalDataRule(path: steps, action: mark.action))
    }

    /// `schema`, or what its `$ref`s lead to.
    private static func resolved(_ schema: JSONSchema) -> JSONSchema {
        var current = schema
        var hops = 0
        while let reference = current.reference, hops < 64 {
            current = reference.target
            hops += 1
        }
        return current
    }
}
