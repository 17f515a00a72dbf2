import TallyCore

extension SchemaTextPlan {
    /// The tables, as they grow while the schema is compiled.
    struct Builder {
        var nodes: [Node] = []
        var members: [Member] = []
        var names: [UInt8] = []
        var textSchemas: [JSONSchema] = []

        mutating func compile(_ schema: JSONSchema, _ compiled: inout [ObjectIdentifier: Int32]) -> Int32 {
            if let index = compiled[ObjectIdentifier(schema)] { return index }
            if schema.hasApplicators, let reference = schema.reference {
                // Draft-07 `$ref` replaces its siblings: the target's node stands for it. While the
                // target compiles, a deferring node does, so a cycle of bare `$ref`s ends (unsure).
                var deferring = Node()
                deferring.defers = true
                compiled[ObjectIdentifier(schema)] = Int32(nodes.count)
                nodes.append(deferring)
                let target = compile(reference.target, &compiled)
                compiled[ObjectIdentifier(schema)] = target
                return target
            }
            let index = Int32(nodes.count)
            nodes.append(Node())
            compiled[ObjectIdentifier(schema)] = index
            nodes[Int(index)] = node(for: schema, &compiled)
            return index
        }

        private mutating func node(for schema: JSONSchema, _ compiled: inout [ObjectIdentifier: Int32]) -> Node {
            var node = Node()
            if schema.rejectsEverything || schema.enumValues != nil || schema.constValue != nil
                || schema.types?.isEmpty == true
                || (schema.hasApplicators
                    && (schema.multipleOf != nil || schema.composition != nil || schema.objectKeywords != nil))
            {
                node.defers = true
                return node
            }
            node.typeMask = schema.typeMask
            // Objects: a required name must be declared, and there may be at most 64 of them.
            guard let requiredMask = schema.requiredMask, schema.properties.count <= 64 else {
                node.defers = true
                return node
            }
            node.requiredMask = requiredMask
            node.firstMember = Int32(members.count)
            node.memberCount = Int32(schema.properties.count)
            let first = members.count
            for property in schema.properties {
                members.append(
                    Member(
                        nameStart: Int32(names.count),
                        nameCount: Int32(property.name.utf8.count),
                        node: 0,
                        isPlain: !property.name.utf8.contains {
                            $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\")
                        }
                    )
                )
                names.append(contentsOf: property.name.utf8)
            }
            for (offset, property) in schema.properties.enumerated() {
                let child = compile(property.schema, &compiled)
                members[first + offset].node = child
            }
            switch schema.additionalProperties {
            case .allowed: node.additional = SchemaTextPlan.allowed
            case .forbidden: node.additional = SchemaTextPlan.forbidden
            case .schema(let additional): node.additional = compile(additional, &compiled)
            }
            // Arrays.
            if let keywords = schema.arrayKeywords {
                if keywords.uniqueItems || keywords.contains != nil {
                    node.defers = true
                    return node
                }
                switch keywords.items {
                case nil: break
                case .every(let items)?: node.items = compile(items, &compiled)
                case .tuple?:
                    node.defers = true
                    return node
                }
                node.minItems = keywords.minItems ?? 0
                node.maxItems = keywords.maxItems ?? .max
            }
            // Strings.
            node.minLength = schema.minLength ?? 0
            node.maxLength = schema.maxLength ?? .max
            if schema.pattern != nil || schema.format != nil {
                node.textSchema = Int32(textSchemas.count)
                textSchemas.append(schema)
            }
            // Numbers: one bound each way is the common case; more defer.
            guard schema.lowerBounds.count <= 1, schema.upperBounds.count <= 1 else {
                node.defers = true
                return node
            }
            if let bound = schema.lowerBounds.first {
                node.hasBounds = true
                node.lower = bound.value
                node.lowerExclusive = bound.exclusive
            }
            if let bound = schema.upperBounds.first {
                node.hasBounds = true
                node.upper = bound.value
                node.upperExclusive = bound.exclusive
            }
            return node
        }

    }
}
