public import TallyCore

/// Why an event was refused: stable codes for rejects files, dead letters and reports.
public enum ReasonCode: String, Sendable, Hashable, CaseIterable, Comparable {
    case malformedJSON = "malformed_json"
    case missingField = "missing_field"
    case invalidName = "invalid_name"
    case unknownEvent = "unknown_event"
    case unknownVersion = "unknown_version"
    case featureMismatch = "feature_mismatch"
    case missingProperty = "missing_property"
    case unknownProperty = "unknown_property"
    case typeMismatch = "type_mismatch"
    case enumMismatch = "enum_mismatch"
    case patternMismatch = "pattern_mismatch"
    case formatMismatch = "format_mismatch"
    case outOfRange = "out_of_range"
    case tooLarge = "too_large"
    case invalidTimestamp = "invalid_timestamp"
    case invalidEventID = "invalid_event_id"
    case duplicateField = "duplicate_field"
    /// A composite rule of the plan failed (`anyOf`, `oneOf`, `not`, `if`/`then`, `contains`, `uniqueItems`, …).
    case schemaMismatch = "schema_mismatch"

    public static func < (lhs: ReasonCode, rhs: ReasonCode) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension ReasonCode {
    /// The reason code for an envelope that could not be decoded.
    public init(_ code: EnvelopeDecodingError.Code) {
        switch code {
        case .malformedJSON, .notAnObject: self = .malformedJSON
        case .missingField: self = .missingField
        case .wrongType: self = .typeMismatch
        case .invalidTimestamp: self = .invalidTimestamp
        case .invalidEventID: self = .invalidEventID
        case .duplicateField: self = .duplicateField
        // A kind added later: the line could not be read as an event.
        default: self = .malformedJSON
        }
    }
}

extension ReasonCode {
    /// The reason code for a JSON Schema keyword that failed.
    package init(schemaKeyword keyword: String) {
        switch keyword {
        case "type": self = .typeMismatch
        case "enum", "const": self = .enumMismatch
        case "pattern": self = .patternMismatch
        case "format": self = .formatMismatch
        case "required", "dependencies", "dependentRequired": self = .missingProperty
        case "additionalProperties", "propertyNames": self = .unknownProperty
        case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength",
            "minItems", "maxItems", "minProperties", "maxProperties":
            self = .outOfRange
        default: self = .schemaMismatch
        }
    }
}

/// One reason an event is invalid: a code, the path of the field at fault, a human message.
public struct EventViolation: Sendable, Hashable, CustomStringConvertible {
    /// The stable reason code.
    public var code: ReasonCode
    /// `$.properties.position`, `$.name`, …
    public var path: String
    /// What is wrong, for a person: names the rule, never echoes the value.
    public var message: String

    /// Creates a violation.
    public init(_ code: ReasonCode, path: String, message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    public var description: String { "\(code.rawValue) at \(path): \(message)" }
}
