import TallyCore

extension EventValidator {
    /// Checks `event` against its plan in `registry`, normalizing its properties in place.
    func checkAgainstRegistry(
        _ event: inout EventEnvelope,
        registry: SchemaRegistry,
        into violations: inout [EventViolation]
    ) {
        let requested = event.schemaVersion.flatMap(SchemaVer.init)
        guard let schema = registry.event(event.name, version: requested) else {
            if registry.versions(of: event.name).isEmpty {
                violations.append(EventViolation(.unknownEvent, path: "$.name", message: "not in the tracking plan"))
            } else if requested != nil {
                let known = registry.versions(of: event.name).map(\.version.description).joined(separator: ", ")
                violations.append(
                    EventViolation(.unknownVersion, path: "$.schema_version", message: "registered versions: \(known)")
                )
            }
            return
        }
        if let feature = event.feature, feature != schema.feature {
            violations.append(
                EventViolation(
                    .featureMismatch,
                    path: "$.feature",
                    message: "the plan puts this event in \(schema.feature)"
                )
            )
        }
        if event.feature != schema.feature { event.feature = schema.feature }
        if event.schemaVersion != schema.versionText { event.schemaVersion = schema.versionText }
        // Strings are read as the declared types only for a producer that could send nothing else
        // (`TrackingEventContract.properties`), and only where the plan normalizes strings: typed
        // sources get plain JSON Schema semantics, so a JSON `"30001"` is no `number`.
        let coerce = schema.normalizesStrings && event.stringProperties
        // Properties in their text, under plain JSON Schema semantics (nothing is converted): one
        // walk of the text decides when they are certainly valid. Anything else (a violation to
        // name, a keyword the walk leaves to the schema) goes the way below, which reads the pairs.
        if !coerce, let text = event.properties.text, schema.propertiesPlan.acceptsProperties(text) {
            return
        }
        let propertySchema = schema.properties
        if !schema.hasSimpleObjectSchema {
            checkWholeObject(&event, schema: schema, coerce: coerce, into: &violations)
            return
        }
        // One walk over the declared properties in storage order: lookups, conversion, required.
        // The normalized list is built only once a value changes; until then the event keeps its
        // storage (building it for every event cost an allocation and a retain per property).
        let present = event.properties.sortedPairsIfStored
        var normalized: [EventProperties.Pair] = []
        // String properties (from `track()`) are usually converted: build the list from the start.
        var building = present == nil
        if building { normalized.reserveCapacity(event.properties.count) }
        var changed = false
        var found = 0
        var cursor = 0
        for (position, declared) in propertySchema.sortedProperties.enumerated() {
            let value: PropertyValue?
            if let present {
                value = Self.merge(declared.name, in: present, cursor: &cursor)
            } else {
                value = event.properties[declared.name]
            }
            guard let value else {
                if declared.isRequired {
                    violations.append(
                        EventViolation(
                            .missingProperty,
                            path: "$.properties.\(declared.name)",
                            message: "required by the plan"
                        )
                    )
                }
                continue
            }
            found += 1
            let converted = declared.schema.normalize(
                value,
                coerceStrings: coerce,
                textPlan: schema.propertyPlans[position],
                path: "$.properties.\(declared.name)",
                into: &violations
            )
            // Raw JSON is never converted; comparing it would cost a pass over its text.
            if case .json = value {} else if !changed, converted != value { changed = true }
            if !building {
                if !changed { continue }
                building = true
                normalized = Self.declaredPairs(of: event.properties, in: propertySchema, before: declared.name)
                normalized.reserveCapacity(event.properties.count)
            }
            normalized.append((declared.name, converted))
        }
        if found < event.properties.count {
            if !building { normalized = Self.declaredPairs(of: event.properties, in: propertySchema) }
            // Undeclared properties: rare, and refused unless the plan allows them.
            event.properties.forEach { key, value in
                guard propertySchema.property(key) == nil else { return }
                switch propertySchema.additionalProperties {
                case .allowed: normalized.append((key, value))
                case .forbidden:
                    violations.append(
                        EventViolation(
                            .unknownProperty,
                            path: "$.properties.\(key)",
                            message: "not declared in the plan"
                        )
                    )
                    normalized.append((key, value))
                case .schema(let additional):
                    normalized.append(
                        (
                            key,
                            additional.normalize(
                                value,
                                coerceStrings: coerce,
                                path: "$.properties.\(key)",
                                into: &violations
                            )
                        )
                    )
                }
            }
            event.properties = EventProperties(pairs: normalized)
            return
        }
        if changed {
            event.properties = EventProperties(sortedPairs: normalized)
        }
    }

    /// The declared properties present in `properties`, unchanged, in declaration (byte) order,
    /// up to the one named `name` (excluded) or all of them.
    private static func declaredPairs(
        of properties: EventProperties,
        in schema: JSONSchema,
        before name: String? = nil
    ) -> [EventProperties.Pair] {
        var pairs: [EventProperties.Pair] = []
        for declared in schema.sortedProperties {
            if declared.name == name { break }
            if let value = properties[declared.name] { pairs.append((declared.name, value)) }
        }
        return pairs
    }

    /// The value of `name` in `pairs` (sorted by key bytes), searching from `cursor` on and
    /// moving it past the match: the declared names arrive in the same order, so the whole walk
    /// is one merge.
    private static func merge(_ name: String, in pairs: [EventProperties.Pair], cursor: inout Int) -> PropertyValue? {
        var index = cursor
        while index < pairs.count {
            if pairs[index].key == name {
                cursor = index + 1
                return pairs[index].value
            }
            if EventProperties.byteOrder(name, pairs[index].key) { break }
            index += 1
        }
        cursor = index
        return nil
    }

    /// Properties whose object schema uses more than `properties`, `required` and
    /// `additionalProperties` (`patternProperties`, `anyOf`, `dependencies`, …): declared string
    /// values are normalized first when `coerce` says so, then the whole object is validated.
    private func checkWholeObject(
        _ event: inout EventEnvelope,
        schema: EventSchema,
        coerce: Bool,
        into violations: inout [EventViolation]
    ) {
        let propertySchema = schema.properties
        if coerce {
            var scratch: [EventViolation] = []
            var pairs = event.properties.sortedPairs
            var changed = false
            for index in pairs.indices {
                guard case .string = pairs[index].value, let declared = propertySchema.property(pairs[index].key) else {
                    continue
                }
                let converted = declared.normalize(pairs[index].value, coerceStrings: true, path: "", into: &scratch)
                if converted != pairs[index].value {
                    pairs[index].value = converted
                    changed = true
                }
            }
            if changed { event.properties = EventProperties(sortedPairs: pairs) }
        }
        let object = JSONValue.object(
            event.properties.sortedPairs.map { JSONMember(key: $0.key, value: $0.value.jsonValue) }
        )
        for violation in propertySchema.violations(of: object, path: "$.properties") {
            violations.append(
                EventViolation(
                    ReasonCode(schemaKeyword: violation.keyword.rawValue),
                    path: violation.path,
                    message: violation.message
                )
            )
        }
    }
}
