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

extension EventContext {
    /// The context of a Segment message from its own `context` kept in its text (no batch
    /// context, no `integrations`): what ``SegmentMessageMapper/context(_:batchContext:integrations:)``
    /// makes of the same members as pairs, without reading the members it keeps (they stay text
    /// in ``additional``). Nil when one of tally's own keys holds something other than a string,
    /// which the pairs keep renamed.
    init?(segmentContext text: PropertyText) {
        self.init()
        if let app = text.index(of: "app") { (appVersion, appBuild) = text.memberTexts(at: app, "version", "build") }
        if let os = text.index(of: "os") { (platform, osVersion) = text.memberTexts(at: os, "name", "version") }
        var taken: [Int] = []
        guard Self.take("app_version", from: text, into: &appVersion, taken: &taken),
            Self.take("app_build", from: text, into: &appBuild, taken: &taken),
            Self.take("platform", from: text, into: &platform, taken: &taken),
            Self.take("os_version", from: text, into: &osVersion, taken: &taken),
            Self.take("locale", from: text, into: &locale, taken: &taken)
        else { return nil }
        taken.sort()
        additional = EventProperties(text: text.removing(taken))
    }

    /// Fills `field` (unless set) from the string member `key`, noting its index; false when the
    /// member is not a string.
    private static func take(
        _ key: StaticString,
        from text: PropertyText,
        into field: inout String?,
        taken: inout [Int]
    ) -> Bool {
        guard let index = text.index(of: key) else { return true }
        guard let value = text.string(at: index) else { return false }
        if field == nil { field = value }
        taken.append(index)
        return true
    }
}
