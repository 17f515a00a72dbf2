extension SchemaDiff {
    /// Every change between two versions of one event: its properties' schemas, then the rules
    /// the device applies before sending.
    static func changes(from old: EventSchema, to new: EventSchema) -> [Change] {
        changes(from: old.properties, to: new.properties) + deviceChanges(from: old, to: new)
    }

    /// Changes to what the device does before an event leaves it, which the properties' schemas
    /// do not show.
    ///
    /// `x-tally-personal-data` marked, unmarked or switched between `remove` and `hash`: MODEL.
    /// What is stored for the property changes form (present or absent, readable or hashed), so
    /// values before and after can no longer be compared or joined, as when a property is retyped.
    /// `x-tally-sample-rate` set, changed or dropped: ADDITION. The events keep their shape; what
    /// each stored one stands for changes, and `sample_rate` on every row says which applied.
    static func deviceChanges(from old: EventSchema, to new: EventSchema) -> [Change] {
        var changes: [Change] = []
        let before = Dictionary(old.personalData.map { ($0.place, $0.action) }) { first, _ in first }
        let after = Dictionary(new.personalData.map { ($0.place, $0.action) }) { first, _ in first }
        for place in Set(before.keys).union(after.keys).sorted() {
            let summary: String
            switch (before[place], after[place]) {
            case (nil, let action?):
                summary = "\(place): now \(Self.participle(action)) on the device (x-tally-personal-data)"
            case (let action?, nil):
                summary = "\(place): no longer \(Self.participle(action)) on the device, sent as it is"
            case (let was?, let now?) where was != now:
                summary = "\(place): \(Self.participle(now)) on the device instead of \(Self.participle(was))"
            default:
                continue
            }
            changes.append(Change(kind: .model, summary: summary))
        }
        if old.sampleRate != new.sampleRate {
            let summary =
                "sample rate \(Self.rate(old.sampleRate)) → \(Self.rate(new.sampleRate)) (x-tally-sample-rate)"
            changes.append(Change(kind: .addition, summary: summary))
        }
        return changes
    }

    private static func participle(_ action: PersonalDataAction) -> String {
        switch action {
        case .remove: "removed"
        case .hash: "hashed"
        }
    }

    private static func rate(_ rate: Double?) -> String {
        rate.map { "\($0)" } ?? "none (every user's events)"
    }
}
