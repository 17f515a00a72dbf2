import TallyCore

/// The event's properties schema inside a Segment rule, which is a JSON Schema of the whole
/// message, and what else that schema constrains (which a tally plan, describing properties only,
/// cannot hold).
///
/// Every Segment export describes an event by its message: `properties.properties` is the
/// properties schema, next to `properties.context` and `properties.traits`. Sources relied on:
/// typewriter's first release (segmentio/typewriter f1b3a90, 2018: `src/lib/fetchPlan.ts` reads
/// `events[].rules`, `src/commands/gen-js.ts` validates with `rules.properties.properties`), the
/// Config API's Get Tracking Plan sample (`rules.events[].rules`, draft-04), and the Public API's
/// `RuleV1.jsonSchema` (segmentio/public-api-sdk-typescript `model/ruleV1.ts`; Terraform
/// `segment_tracking_plan` rules show the same message schema). Exports also put the message's
/// `required` list inside `properties` (`"properties": {"required": ["properties"], …}`, seen in
/// uswitch/terraform-provider-segment's example rules): it is read as the message's.
struct SegmentMessageSchema {
    /// Why a rule's schema cannot be read; the event is refused with it.
    struct Unreadable: Error {
        var reason: String
    }

    /// One constraint that is not imported: its path relative to the message schema
    /// (`.properties.context`) and why.
    struct DroppedPart {
        var path: String
        var reason: String
    }

    /// The properties schema as the source has it (`{}` when absent; draft-04 bounds in draft-07
    /// spelling, and the message's `definitions` when it refers to them).
    let properties: JSONValue
    /// Constraints on the rest of the message.
    let droppedParts: [DroppedPart]

    /// Annotations, and Segment's own `labels` (tracking-plan labels, metadata for people).
    static let annotations: Set<String> = [
        "$schema", "$id", "id", "$comment", "title", "description", "default", "examples", "labels",
    ]
    /// Members of a Segment message (https://segment.com/docs/connections/spec/common/); a message
    /// schema's `properties` names some of them.
    private static let messageFields: Set<String> = [
        "properties", "context", "traits", "event", "type", "userId", "anonymousId", "messageId", "timestamp",
        "sentAt", "receivedAt", "originalTimestamp", "integrations", "name", "category", "groupId", "previousId",
        "channel", "version",
    ]

    /// Splits `message`; throws when it does not describe a Segment message.
    init(_ message: JSONValue) throws(Unreadable) {
        var dropped: [DroppedPart] = []
        var propertiesSchema: JSONValue?
        switch message {
        case .null, .bool(true): break  // The Public API's `jsonSchema` may be null: nothing is constrained.
        case .object(let members):
            for member in members {
                switch member.key {
                case let key where Self.annotations.contains(key) || key == "definitions" || key == "$defs": continue
                case "type" where Self.allowsObject(member.value): continue
                case "required": dropped += Self.required(member.value, path: ".required")
                case "properties":
                    guard case .object(let fields) = member.value else {
                        throw Unreadable(reason: "properties of the message schema is not an object")
                    }
                    if !fields.isEmpty,
                        !fields.contains(where: { Self.messageFields.contains($0.key) || $0.key == "required" })
                    {
                        throw Unreadable(
                            reason: "does not describe a Segment message (no properties.properties, context or traits)"
                        )
                    }
                    for field in fields {
                        switch field.key {
                        case "properties": propertiesSchema = field.value
                        case "required" where field.value.isArray:
                            dropped += Self.required(field.value, path: ".properties.required")
                        case let key where !Self.isUnconstrained(field.value):
                            dropped.append(
                                DroppedPart(
                                    path: ".properties.\(key)",
                                    reason: "\(key) rules are not part of a tally event (its plan describes properties)"
                                )
                            )
                        default: continue
                        }
                    }
                default:
                    dropped.append(
                        DroppedPart(
                            path: ".\(member.key)",
                            reason: "\(member.key) constrains the whole message; a tally plan describes properties"
                        )
                    )
                }
            }
        default: throw Unreadable(reason: "the rule's schema is not a JSON Schema object")
        }
        var properties = try Self.withDefinitions(propertiesSchema ?? .object([]), from: message)
        if Draft04.isDeclared(by: message) || Draft04.isDeclared(by: properties) {
            properties = Draft04.toDraft07(properties)
        }
        self.properties = properties
        droppedParts = dropped
    }

    /// Whether `schema` accepts every value that is an object or absent: empty, annotations,
    /// `"type": "object"`, and `properties` that are all unconstrained.
    static func isUnconstrained(_ schema: JSONValue) -> Bool {
        switch schema {
        case .null, .bool(true): return true
        case .object(let members):
            return members.allSatisfy { member in
                switch member.key {
                case let key where annotations.contains(key): true
                case "type": allowsObject(member.value)
                case "properties": member.value.objectMembers?.allSatisfy { isUnconstrained($0.value) } ?? false
                case "required": member.value == .array([])
                default: false
                }
            }
        default: return false
        }
    }

    private static func allowsObject(_ type: JSONValue) -> Bool {
        switch type {
        case .string(let name): name == "object"
        case .array(let names): names.contains(.string("object"))
        default: false
        }
    }

    /// The message always has its properties (tally's are `{}` when none were sent): requiring
    /// them constrains nothing, requiring anything else cannot be imported.
    private static func required(_ value: JSONValue, path: String) -> [DroppedPart] {
        guard case .array(let names) = value else {
            return [DroppedPart(path: path, reason: "required of the message is not a list of names")]
        }
        let others = names.filter { $0 != .string("properties") }.map { $0.stringValue ?? JSONWriter.text($0) }
        guard !others.isEmpty else { return [] }
        return [
            DroppedPart(
                path: path,
                reason: "the message must have \(others.joined(separator: ", ")); a tally plan describes properties"
            )
        ]
    }

    /// `$ref`s to `#/definitions/…` (or `#/$defs/…`) meant the message's root; the properties
    /// schema becomes the root, so it takes those definitions along. Other references into the
    /// message cannot be kept.
    private static func withDefinitions(_ properties: JSONValue, from message: JSONValue) throws(Unreadable)
        -> JSONValue
    {
        var references: [String] = []
        collectReferences(properties, into: &references)
        var carried: [JSONMember] = []
        for reference in references where reference.hasPrefix("#") {
            guard let container = ["definitions", "$defs"].first(where: { reference.hasPrefix("#/\($0)/") }),
                let definitions = message[container]
            else {
                throw Unreadable(reason: "$ref \(reference.debugDescription) points outside the event's properties")
            }
            guard properties[container] == nil || properties[container] == definitions else {
                throw Unreadable(
                    reason: "$ref \(reference.debugDescription) is ambiguous: properties has \(container) too"
                )
            }
            if properties[container] == nil, !carried.contains(where: { $0.key == container }) {
                carried.append(JSONMember(key: container, value: definitions))
            }
        }
        guard !carried.isEmpty, case .object(let members) = properties else { return properties }
        return .object(members + carried)
    }

    private static func collectReferences(_ schema: JSONValue, into references: inout [String]) {
        switch schema {
        case .array(let elements): for element in elements { collectReferences(element, into: &references) }
        case .object(let members):
            for member in members {
                if member.key == "$ref", let reference = member.value.stringValue {
                    references.append(reference)
                } else if Draft04.schemaMaps.contains(member.key), let named = member.value.objectMembers {
                    for schema in named { collectReferences(schema.value, into: &references) }
                } else if !Draft04.dataKeywords.contains(member.key) {
                    collectReferences(member.value, into: &references)
                }
            }
        default: break
        }
    }
}

extension JSONValue {
    fileprivate var isArray: Bool {
        if case .array = self { true } else { false }
    }
}
