public import TallyCore

/// One version of one event in a tracking plan. A class: lookups on the validation path hand out
/// one reference instead of copying a dozen fields.
public final class EventSchema: Sendable {
    /// `episode_list_episode_selected`.
    public let name: String
    /// The feature that owns it.
    public let feature: String
    /// The screen its name starts with.
    public let screen: String
    /// Its SchemaVer.
    public let version: SchemaVer
    /// What it means, for people.
    public let description: String
    /// The JSON Schema of its properties (an object schema; properties of any JSON type).
    public let properties: JSONSchema
    /// Whether string values are read as the declared type (`"1"` → `1`): the plan's
    /// `normalize_strings` setting.
    public let normalizesStrings: Bool
    /// Where it was declared (`episode.json`, `$.events[1]`).
    public let file: String?
    /// The JSON path in that file.
    public let path: String
    /// ``version`` as text, stamped on every validated event.
    public let versionText: String
    /// The properties the plan marks as personal data (`x-tally-personal-data`), removed or hashed
    /// on the device before the event leaves it; empty for most events.
    public let personalData: [PersonalDataRule]
    /// The share of users whose events of this kind the device sends (`x-tally-sample-rate`,
    /// 0 < rate < 1); nil when every user's are sent.
    public let sampleRate: Double?
    /// Whether the properties' object schema uses only `type`, `properties`, `required`,
    /// `additionalProperties` and annotations: then validation walks the declared properties
    /// directly instead of validating the object as a whole.
    let hasSimpleObjectSchema: Bool
    /// The declared properties' schemas compiled for raw JSON text, in the order of
    /// `properties.sortedProperties`: nested values are checked from their text.
    let propertyPlans: [SchemaTextPlan]
    /// The whole properties schema compiled for raw JSON text: properties kept in their text are
    /// checked in one walk.
    let propertiesPlan: SchemaTextPlan

    private static let simpleObjectKeywords: Set<String> = [
        "type", "properties", "required", "additionalProperties", "$schema", "$id", "id", "$comment", "title",
        "description", "default", "examples",
    ]

    init(
        name: String,
        feature: String,
        screen: String,
        version: SchemaVer,
        description: String,
        properties: JSONSchema,
        normalizesStrings: Bool = true,
        file: String?,
        path: String,
        personalData: [PersonalDataRule] = [],
        sampleRate: Double? = nil
    ) {
        self.name = name
        self.feature = feature
        self.screen = screen
        self.version = version
        self.description = description
        self.properties = properties
        self.normalizesStrings = normalizesStrings
        self.file = file
        self.path = path
        versionText = version.description
        self.personalData = personalData
        self.sampleRate = sampleRate
        propertyPlans = properties.sortedProperties.map { SchemaTextPlan($0.schema) }
        propertiesPlan = SchemaTextPlan(properties)
        hasSimpleObjectSchema =
            properties.source.objectMembers?.allSatisfy { Self.simpleObjectKeywords.contains($0.key) } ?? false
    }
}

/// One feature's tracking plan: one file of the registry.
public struct TrackingPlan: Sendable {
    /// `episode`.
    public let feature: String
    /// What the feature does.
    public let description: String
    /// The screens whose names prefix the feature's event names (none for `as_sent` plans).
    public let screens: [String]
    /// Every event version the plan declares.
    public let events: [EventSchema]
    /// How its event names are checked.
    public let naming: EventNaming
    /// Whether string values are read as the declared types.
    public let normalizeStrings: Bool
    /// The file it was loaded from.
    public let file: String?
    /// The plan as written.
    public let source: JSONValue
}

/// How a tracking plan's event names are checked: its `naming` setting.
public enum EventNaming: String, Sendable, Hashable {
    /// tally's convention: lowercase snake_case `{screen}_{action}` with a declared screen.
    case screenAction = "screen_action"
    /// Names as the source spells them (`Order Completed`, `$pageview`): 1 to 255 bytes, no control characters.
    case asSent = "as_sent"
}
