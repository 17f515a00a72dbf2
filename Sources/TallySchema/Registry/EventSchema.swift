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
    /// The JSON Schema of its properties (an object schema of scalar properties).
    public let properties: JSONSchema
    /// Where it was declared (`episode.json`, `$.events[1]`).
    public let file: String?
    /// The JSON path in that file.
    public let path: String
    /// ``version`` as text, stamped on every validated event.
    public let versionText: String

    init(
        name: String,
        feature: String,
        screen: String,
        version: SchemaVer,
        description: String,
        properties: JSONSchema,
        file: String?,
        path: String
    ) {
        self.name = name
        self.feature = feature
        self.screen = screen
        self.version = version
        self.description = description
        self.properties = properties
        self.file = file
        self.path = path
        versionText = version.description
    }
}

/// One feature's tracking plan: one file of the registry.
public struct TrackingPlan: Sendable {
    /// `episode`.
    public let feature: String
    /// What the feature does.
    public let description: String
    /// The screens whose names prefix the feature's event names.
    public let screens: [String]
    /// Every event version the plan declares.
    public let events: [EventSchema]
    /// The file it was loaded from.
    public let file: String?
    /// The plan as written.
    public let source: JSONValue
}
