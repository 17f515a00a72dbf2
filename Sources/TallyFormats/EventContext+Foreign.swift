import TallyCore

extension EventContext {
    /// tally's own context keys, which a source's context cannot also carry as other members.
    static let knownKeys: [String] = ["app_version", "app_build", "platform", "os_version", "locale"]

    /// Moves a source context's members into ``additional`` (in `order`), except tally's own keys:
    /// a string there fills the field when the mapping left it empty; any other value is kept
    /// under `<key>_value`, so no member is lost and none shadows a field.
    mutating func fillKnownFields(from merged: inout [String: PropertyValue], order: [String]) {
        for key in Self.knownKeys {
            guard let value = merged[key] else { continue }
            if case .string(let text) = value {
                merged[key] = nil
                switch key {
                case "app_version": appVersion = appVersion ?? text
                case "app_build": appBuild = appBuild ?? text
                case "platform": platform = platform ?? text
                case "os_version": osVersion = osVersion ?? text
                default: locale = locale ?? text
                }
            }
        }
        var pairs: [EventProperties.Pair] = []
        for key in order {
            guard let value = merged[key] else { continue }
            pairs.append((Self.knownKeys.contains(key) ? key + "_value" : key, value))
        }
        additional = EventProperties(pairs: pairs)
    }
}
