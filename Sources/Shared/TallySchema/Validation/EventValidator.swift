public import TallyCore

/// Checks events against the structural rules, the naming rules and (when there is one) the
/// registry, and normalizes them for storage. Immutable and `Sendable`: call it from anywhere.
///
/// Each event is judged on its own; one invalid event never affects another.
public struct EventValidator: Sendable {
    /// The tracking plans; nil for structural validation only.
    public let registry: SchemaRegistry?
    /// Size limits.
    public let limits: ValidationLimits

    /// A validator against `registry` (nil: envelope, names, sizes and timestamps only).
    public init(registry: SchemaRegistry?, limits: ValidationLimits = ValidationLimits()) {
        self.registry = registry
        self.limits = limits
    }

    /// The verdict on `event`, with the normalized event.
    ///
    /// Takes the event `consuming`: when the caller hands over its last copy, normalization edits it
    /// in place instead of copying its storage.
    public func validate(_ event: consuming EventEnvelope) -> ValidationResult {
        var violations: [EventViolation] = []
        checkStructure(event, into: &violations)
        // Identity records (identify, group, alias) are not events: no tracking plan declares them.
        if let registry, event.kind == .track,
            violations.isEmpty || !violations.contains(where: { $0.code == .invalidName })
        {
            checkAgainstRegistry(&event, registry: registry, into: &violations)
        }
        return ValidationResult(event: event, violations: violations)
    }

    /// Decodes and validates one NDJSON line. A line that is not an envelope gets a result with
    /// a placeholder event (no name) and the decoding violation.
    public func validate(ndjsonLine line: some Collection<UInt8>, fallbackID: EventID) -> ValidationResult {
        do {
            return validate(try EventEnvelope(ndjsonLine: line, fallbackID: fallbackID))
        } catch {
            let placeholder = EventEnvelope(
                eventID: fallbackID,
                name: "",
                occurredAt: Timestamp(nanosecondsSinceEpoch: 0)
            )
            return ValidationResult(
                event: placeholder,
                violations: [EventViolation(ReasonCode(error.code), path: error.path, message: error.message)]
            )
        }
    }

    // MARK: Structure and names

    private func checkStructure(_ event: EventEnvelope, into violations: inout [EventViolation]) {
        let name = event.name
        if name.isEmpty {
            violations.append(EventViolation(.missingField, path: "$.name", message: "required"))
        } else if name.utf8.count > limits.maxNameLength {
            violations.append(
                EventViolation(.tooLarge, path: "$.name", message: "longer than \(limits.maxNameLength) bytes")
            )
        } else if let problem = NamingRules.problemWithSentName(name) {
            violations.append(EventViolation(.invalidName, path: "$.name", message: problem))
        }
        // With a registry the plan judges the feature (`feature_mismatch`; a plan's feature is checked
        // at load), so this per-event check is only for validation without one.
        if registry == nil, let feature = event.feature {
            if feature.utf8.count > limits.maxNameLength {
                violations.append(
                    EventViolation(.tooLarge, path: "$.feature", message: "longer than \(limits.maxNameLength) bytes")
                )
            } else if let problem = NamingRules.problemWithSentName(feature) {
                violations.append(EventViolation(.invalidName, path: "$.feature", message: problem))
            }
        }
        let properties = event.properties
        if properties.count > limits.maxPropertyCount {
            violations.append(
                EventViolation(
                    .tooLarge,
                    path: "$.properties",
                    message: "more than \(limits.maxPropertyCount) properties"
                )
            )
        }
        var estimatedBytes = 256 + name.utf8.count
        if let summary = properties.text?.summary, Int(summary.longestKey) <= limits.maxKeyLength,
            Int(summary.longestString) <= limits.maxValueLength, Int(summary.depth) <= limits.maxDepth,
            Int(summary.nestedValues) <= limits.maxNestedValues
        {
            // Properties in their text: bounds over all members answer every limit at once (the
            // members are walked only to name what is over one).
            estimatedBytes += summary.estimatedBytes
        } else {
            var nestedValues = 0
            properties.forEach { key, value in
                let keyBytes = key.utf8.count
                estimatedBytes += keyBytes + 8
                if keyBytes > limits.maxKeyLength {
                    violations.append(
                        EventViolation(
                            .tooLarge,
                            path: "$.properties",
                            message: "a key is over \(limits.maxKeyLength) bytes"
                        )
                    )
                }
                switch value {
                case .string(let string):
                    let valueBytes = string.utf8.count
                    estimatedBytes += valueBytes
                    if valueBytes > limits.maxValueLength {
                        violations.append(
                            EventViolation(
                                .tooLarge,
                                path: "$.properties.\(key)",
                                message: "over \(limits.maxValueLength) bytes"
                            )
                        )
                    }
                case .json(let raw):
                    estimatedBytes += raw.text.utf8.count
                    // The shape recorded when the value was read answers every limit at once; the value
                    // is walked only to name what is over one.
                    let shape = raw.shape
                    if shape.depth <= limits.maxDepth, shape.longestString <= limits.maxValueLength,
                        shape.longestKey <= limits.maxKeyLength,
                        nestedValues + Int(shape.values) <= limits.maxNestedValues
                    {
                        nestedValues += Int(shape.values)
                    } else {
                        checkNested(
                            raw.value,
                            path: "$.properties.\(key)",
                            depth: 0,
                            count: &nestedValues,
                            into: &violations
                        )
                    }
                default:
                    estimatedBytes += 24
                }
            }
        }
        // Three calls, not a loop over an array of (field, value): this runs for every event.
        checkIdentity(event.userID, "user_id", size: &estimatedBytes, into: &violations)
        checkIdentity(event.anonymousID, "anonymous_id", size: &estimatedBytes, into: &violations)
        checkIdentity(event.sessionID, "session_id", size: &estimatedBytes, into: &violations)
        if let version = event.schemaVersion, SchemaVer(version) == nil {
            violations.append(
                EventViolation(.unknownVersion, path: "$.schema_version", message: "not a SchemaVer like 1-0-0")
            )
        }
        if let context = event.context, !context.additional.isEmpty { estimatedBytes += 4096 }
        // Exact size only when the cheap estimate (escaping aside) says it might be too large.
        if estimatedBytes * 2 > limits.maxEventBytes {
            let size = event.ndjsonLine.count - 1  // the newline is the line's, not the event's
            if size > limits.maxEventBytes {
                violations.append(
                    EventViolation(
                        .tooLarge,
                        path: "$",
                        message:
                            "\(size) bytes as an NDJSON envelope, over the \(limits.maxEventBytes)-byte event limit"
                    )
                )
            }
        }
    }

    /// Depth, count, key and string limits inside a nested value; one violation per kind of excess.
    private func checkNested(
        _ value: JSONValue,
        path: @autoclosure () -> String,
        depth: Int,
        count: inout Int,
        into violations: inout [EventViolation]
    ) {
        count += 1
        if count == limits.maxNestedValues + 1 {
            violations.append(
                EventViolation(
                    .tooLarge,
                    path: "$.properties",
                    message: "more than \(limits.maxNestedValues) nested values"
                )
            )
        }
        switch value {
        case .string(let string) where string.utf8.count > limits.maxValueLength:
            violations.append(EventViolation(.tooLarge, path: path(), message: "over \(limits.maxValueLength) bytes"))
        case .array(let elements):
            guard depth < limits.maxDepth else {
                violations.append(
                    EventViolation(.tooLarge, path: path(), message: "nested deeper than \(limits.maxDepth) levels")
                )
                return
            }
            for (index, element) in elements.enumerated() {
                checkNested(element, path: "\(path())[\(index)]", depth: depth + 1, count: &count, into: &violations)
            }
        case .object(let members):
            guard depth < limits.maxDepth else {
                violations.append(
                    EventViolation(.tooLarge, path: path(), message: "nested deeper than \(limits.maxDepth) levels")
                )
                return
            }
            for member in members {
                if member.key.utf8.count > limits.maxKeyLength {
                    violations.append(
                        EventViolation(.tooLarge, path: path(), message: "a key is over \(limits.maxKeyLength) bytes")
                    )
                }
                checkNested(
                    member.value,
                    path: "\(path()).\(member.key)",
                    depth: depth + 1,
                    count: &count,
                    into: &violations
                )
            }
        default: break
        }
    }

    private func checkIdentity(
        _ value: String?,
        _ field: StaticString,
        size: inout Int,
        into violations: inout [EventViolation]
    ) {
        guard let value else { return }
        let bytes = value.utf8.count
        size += bytes
        if bytes > limits.maxValueLength {
            violations.append(
                EventViolation(.tooLarge, path: "$.\(field)", message: "over \(limits.maxValueLength) bytes")
            )
        }
    }
}
