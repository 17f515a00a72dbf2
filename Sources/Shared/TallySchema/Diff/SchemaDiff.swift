import TallyCore

/// Compares two registries and classifies every change by SchemaVer rules.
///
/// MODEL: a property removed or retyped, a property made required, an event removed.
/// REVISION: a constraint tightened (enum value removed, bound or length narrowed, pattern or
/// format added or changed), an undeclared-properties rule closed, or an optional property added
/// while undeclared properties were allowed (old events may carry it with another type).
/// ADDITION: an optional property added to a closed schema, a constraint relaxed, a requirement
/// dropped. Descriptions never need a bump. What the device does before sending counts too
/// (``deviceChanges(from:to:)``): a personal-data mark is MODEL, a sample rate ADDITION.
package struct SchemaDiff: Sendable {
    /// One change to one event.
    package struct Change: Sendable, Hashable, CustomStringConvertible {
        /// How much it breaks.
        package var kind: SchemaChange
        /// What changed, for a person.
        package var summary: String

        package var description: String { "\(kind): \(summary)" }
    }

    /// The comparison of one event between the two registries.
    package struct EventReport: Sendable {
        /// The event.
        package var name: String
        /// Its latest version before, nil when new.
        package var oldVersion: SchemaVer?
        /// Its latest version after, nil when removed.
        package var newVersion: SchemaVer?
        /// Every change found.
        package var changes: [Change]
        /// The smallest bump the changes require, nil when none is required.
        package var requiredBump: SchemaChange? { changes.map(\.kind).max() }
        /// The bump declared by the versions, nil when they are equal.
        package var declaredBump: SchemaChange? {
            guard let oldVersion, let newVersion else { return nil }
            return oldVersion.bump(to: newVersion)
        }
        /// What is wrong, if anything: a bump smaller than required, or a version going backwards.
        package var problem: String?
    }

    /// Every event whose schema or version changed, by name.
    package let reports: [EventReport]

    /// Whether every change is covered by its version bump.
    package var isAcceptable: Bool { reports.allSatisfy { $0.problem == nil } }

    /// Compares `old` with `new`.
    package init(old: SchemaRegistry, new: SchemaRegistry) {
        var reports: [EventReport] = []
        for name in Set(old.eventNames).union(new.eventNames).sorted() {
            let before = old.event(name)
            let after = new.event(name)
            var report = EventReport(name: name, oldVersion: before?.version, newVersion: after?.version, changes: [])
            switch (before, after) {
            case (let before?, nil):
                report.changes = [Change(kind: .model, summary: "event removed from the plan")]
                report.problem =
                    "\(name) \(before.version) was removed: events already tracked can no longer be validated"
            case (nil, _?):
                report.changes = [Change(kind: .addition, summary: "new event")]
            case (let before?, let after?):
                report.changes = Self.changes(from: before, to: after)
                if after.version < before.version {
                    report.problem = "version went backwards (\(before.version) → \(after.version))"
                } else if let required = report.requiredBump {
                    let declared = before.version.bump(to: after.version)
                    if declared.map({ $0 < required }) ?? true {
                        report.problem =
                            "needs a \(required) bump, the versions declare \(declared.map(\.description) ?? "none")"
                    }
                }
                // An already-published version must not change in place.
                for version in old.versions(of: name) {
                    guard let same = new.event(name, version: version.version) else { continue }
                    let edits = Self.changes(from: version, to: same)
                    if !edits.isEmpty {
                        report.problem = "version \(version.version) was edited in place: publish a new version instead"
                    }
                }
            case (nil, nil):
                continue
            }
            if !report.changes.isEmpty || report.problem != nil { reports.append(report) }
        }
        self.reports = reports
    }

    /// The property-level changes between two property schemas.
    static func changes(from old: JSONSchema, to new: JSONSchema) -> [Change] {
        var changes: [Change] = []
        let oldRequired = Set(old.required)
        let newRequired = Set(new.required)
        for (name, oldProperty) in old.properties {
            guard let newProperty = new.property(name) else {
                changes.append(Change(kind: .model, summary: "property \(name) removed"))
                continue
            }
            changes += propertyChanges(name, from: oldProperty, to: newProperty)
        }
        for (name, _) in new.properties where old.property(name) == nil {
            if newRequired.contains(name) {
                changes.append(Change(kind: .model, summary: "required property \(name) added"))
            } else if case .forbidden = old.additionalProperties {
                changes.append(Change(kind: .addition, summary: "optional property \(name) added"))
            } else {
                changes.append(
                    Change(
                        kind: .revision,
                        summary: "optional property \(name) added while undeclared ones were allowed"
                    )
                )
            }
        }
        for name in newRequired.subtracting(oldRequired).sorted() where old.property(name) != nil {
            changes.append(Change(kind: .model, summary: "property \(name) made required"))
        }
        for name in oldRequired.subtracting(newRequired).sorted() where new.property(name) != nil {
            changes.append(Change(kind: .addition, summary: "property \(name) made optional"))
        }
        switch (old.additionalProperties, new.additionalProperties) {
        case (.forbidden, .allowed):
            changes.append(Change(kind: .addition, summary: "undeclared properties now allowed"))
        case (.allowed, .forbidden):
            changes.append(Change(kind: .revision, summary: "undeclared properties now refused"))
        default: break
        }
        return changes
    }

    private static func propertyChanges(_ name: String, from old: JSONSchema, to new: JSONSchema) -> [Change] {
        var changes: [Change] = []
        func change(_ kind: SchemaChange, _ what: String) {
            changes.append(Change(kind: kind, summary: "\(name): \(what)"))
        }
        let oldTypes = old.types ?? []
        let newTypes = new.types ?? []
        if oldTypes.subtracting([.null]) != newTypes.subtracting([.null]) {
            change(.model, "type changed")
        } else if oldTypes.contains(.null) != newTypes.contains(.null) {
            change(
                newTypes.contains(.null) ? .addition : .revision,
                newTypes.contains(.null) ? "now nullable" : "no longer nullable"
            )
        }
        if JSONWriter.text(old.enumValues.map(JSONValue.array) ?? .null)
            != JSONWriter.text(new.enumValues.map(JSONValue.array) ?? .null)
        {
            let oldSet = Set((old.enumValues ?? []).map { JSONWriter.text($0) })
            let newSet = Set((new.enumValues ?? []).map { JSONWriter.text($0) })
            if old.enumValues == nil {
                change(.revision, "enum added")
            } else if new.enumValues == nil || oldSet.isSubset(of: newSet) {
                change(.addition, "enum widened")
            } else {
                change(.revision, "enum values removed")
            }
        }
        if old.constValue != new.constValue { change(new.constValue == nil ? .addition : .revision, "const changed") }
        if old.pattern?.source != new.pattern?.source {
            change(
                new.pattern == nil ? .addition : .revision,
                new.pattern == nil ? "pattern removed" : "pattern changed"
            )
        }
        if old.format != new.format {
            change(new.format == nil ? .addition : .revision, new.format == nil ? "format removed" : "format changed")
        }
        compareLimit(
            "minLength",
            old.minLength.map(Double.init),
            new.minLength.map(Double.init),
            tighterIsLarger: true,
            change
        )
        compareLimit(
            "maxLength",
            old.maxLength.map(Double.init),
            new.maxLength.map(Double.init),
            tighterIsLarger: false,
            change
        )
        if old.lowerBounds != new.lowerBounds {
            let tighter =
                (new.lowerBounds.map(\.value).max() ?? -.infinity) > (old.lowerBounds.map(\.value).max() ?? -.infinity)
                || (new.lowerBounds.contains(where: \.exclusive) && !old.lowerBounds.contains(where: \.exclusive))
            change(tighter ? .revision : .addition, "lower bound changed")
        }
        if old.upperBounds != new.upperBounds {
            let tighter =
                (new.upperBounds.map(\.value).min() ?? .infinity) < (old.upperBounds.map(\.value).min() ?? .infinity)
                || (new.upperBounds.contains(where: \.exclusive) && !old.upperBounds.contains(where: \.exclusive))
            change(tighter ? .revision : .addition, "upper bound changed")
        }
        return changes
    }

    private static func compareLimit(
        _ keyword: String,
        _ old: Double?,
        _ new: Double?,
        tighterIsLarger: Bool,
        _ change: (SchemaChange, String) -> Void
    ) {
        guard old != new else { return }
        let tighter: Bool
        switch (old, new) {
        case (nil, _?): tighter = true
        case (_?, nil): tighter = false
        case (let old?, let new?): tighter = tighterIsLarger ? new > old : new < old
        default: return
        }
        change(tighter ? .revision : .addition, "\(keyword) \(tighter ? "tightened" : "relaxed")")
    }
}
