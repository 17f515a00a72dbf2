import TallyCore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

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
    /// which the pairs keep renamed, or sits past the 64th member.
    init?(segmentContext text: PropertyText) {
        self.init()
        // One pass over the keys; then app and os (they win), then tally's own keys.
        var app: Int?
        var os: Int?
        var own: (appVersion: Int?, appBuild: Int?, platform: Int?, osVersion: Int?, locale: Int?)
        text.forEachKey { index, key in
            func equals(_ literal: StaticString) -> Bool {
                key.count == literal.utf8CodeUnitCount && memcmp(key.baseAddress!, literal.utf8Start, key.count) == 0
            }
            switch key.count {
            case 2 where equals("os"): os = index
            case 3 where equals("app"): app = index
            case 6 where equals("locale"): own.locale = index
            case 8 where equals("platform"): own.platform = index
            case 9 where equals("app_build"): own.appBuild = index
            case 10 where equals("os_version"): own.osVersion = index
            case 11 where equals("app_version"): own.appVersion = index
            default: break
            }
        }
        if let app { (appVersion, appBuild) = text.memberTexts(at: app, "version", "build") }
        if let os { (platform, osVersion) = text.memberTexts(at: os, "name", "version") }
        var taken: UInt64 = 0
        guard Self.fill(&appVersion, from: text, at: own.appVersion, taken: &taken),
            Self.fill(&appBuild, from: text, at: own.appBuild, taken: &taken),
            Self.fill(&platform, from: text, at: own.platform, taken: &taken),
            Self.fill(&osVersion, from: text, at: own.osVersion, taken: &taken),
            Self.fill(&locale, from: text, at: own.locale, taken: &taken)
        else { return nil }
        additional = EventProperties(text: text.removing(taken))
    }

    /// Fills `field` (unless set) from the string member at `index` and marks it taken; false
    /// when that member is not a string or not among the first 64.
    private static func fill(
        _ field: inout String?,
        from text: PropertyText,
        at index: Int?,
        taken: inout UInt64
    ) -> Bool {
        guard let index else { return true }
        guard index < 64, let value = text.string(at: index) else { return false }
        if field == nil { field = value }
        taken |= 1 << UInt64(index)
        return true
    }
}
