import TallyCore

extension EventContext {
    /// Takes a source context's members (distinct keys) into ``additional``, except tally's own
    /// keys: a string there fills the field when the mapping left it empty; any other value is
    /// kept under `<key>_value`, so no member is lost and none shadows a field.
    mutating func fillKnownFields(from members: [EventProperties.Pair]) {
        var kept: [EventProperties.Pair] = []
        kept.reserveCapacity(members.count)
        for member in members {
            let field: WritableKeyPath<EventContext, String?>
            switch member.key {
            case "app_version": field = \.appVersion
            case "app_build": field = \.appBuild
            case "platform": field = \.platform
            case "os_version": field = \.osVersion
            case "locale": field = \.locale
            default:
                kept.append(member)
                continue
            }
            if case .string(let text) = member.value {
                if self[keyPath: field] == nil { self[keyPath: field] = text }
            } else {
                kept.append((member.key + "_value", member.value))
            }
        }
        additional = EventProperties(pairs: kept)
    }
}
