package import TallyCore

/// Where a filter or a breakdown looks in an event: a top-level envelope field, a context key or
/// a property (docs/reports.md, Filters).
package enum ReportField: Sendable, Hashable, CustomStringConvertible {
    case name
    case feature
    case userID
    case anonymousID
    case sessionID
    case schemaVersion
    /// `context.KEY`.
    case context(String)
    /// `properties.KEY`, or a bare `KEY`.
    case property(String)

    /// Parses `name`, `feature`, …, `context.KEY`, `properties.KEY` or a bare property key.
    package init(_ text: String) throws(ReportError) {
        switch text {
        case "": throw ReportError(.syntax, path: "", "an empty field name")
        case "name": self = .name
        case "feature": self = .feature
        case "user_id": self = .userID
        case "anonymous_id": self = .anonymousID
        case "session_id": self = .sessionID
        case "schema_version": self = .schemaVersion
        default:
            if text.hasPrefix("context.") {
                let key = String(text.dropFirst("context.".count))
                guard !key.isEmpty else { throw ReportError(.syntax, path: "", "context. needs a key: context.KEY") }
                self = .context(key)
            } else if text.hasPrefix("properties.") {
                let key = String(text.dropFirst("properties.".count))
                guard !key.isEmpty else {
                    throw ReportError(.syntax, path: "", "properties. needs a key: properties.KEY")
                }
                self = .property(key)
            } else {
                self = .property(text)
            }
        }
    }

    package var description: String {
        switch self {
        case .name: "name"
        case .feature: "feature"
        case .userID: "user_id"
        case .anonymousID: "anonymous_id"
        case .sessionID: "session_id"
        case .schemaVersion: "schema_version"
        case .context(let key): "context." + key
        case .property(let key): "properties." + key
        }
    }

    /// The event's value there; nil when unset (absent or `null`).
    package func value(in event: EventEnvelope) -> PropertyValue? {
        let value: PropertyValue?
        switch self {
        case .name: value = .string(event.name)
        case .feature: value = event.feature.map(PropertyValue.string)
        case .userID: value = event.userID.map(PropertyValue.string)
        case .anonymousID: value = event.anonymousID.map(PropertyValue.string)
        case .sessionID: value = event.sessionID.map(PropertyValue.string)
        case .schemaVersion: value = event.schemaVersion.map(PropertyValue.string)
        case .context(let key):
            guard let context = event.context else { return nil }
            switch key {
            case "app_version": value = context.appVersion.map(PropertyValue.string)
            case "app_build": value = context.appBuild.map(PropertyValue.string)
            case "platform": value = context.platform.map(PropertyValue.string)
            case "os_version": value = context.osVersion.map(PropertyValue.string)
            case "locale": value = context.locale.map(PropertyValue.string)
            default: value = context.additional[key]
            }
        case .property(let key): value = event.properties[key]
        }
        if case .null? = value { return nil }
        return value
    }
}
