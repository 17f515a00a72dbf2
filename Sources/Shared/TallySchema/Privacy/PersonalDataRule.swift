/// What the device does with a property a tracking plan marks as personal data
/// (`"x-tally-personal-data": "remove" | "hash"` on the property's schema).
public enum PersonalDataAction: String, Sendable, Hashable, CaseIterable {
    /// The property is deleted before the event leaves the device.
    case remove
    /// The value is replaced by the lowercase hex SHA-256 of its text (salted when the app
    /// configures a salt): still joinable and countable, no longer readable.
    case hash
}

/// One personal-data property of an event: where it sits in the properties, and what is done to it.
public struct PersonalDataRule: Sendable, Hashable, CustomStringConvertible {
    /// One step from the event's properties object to the marked value.
    public enum Step: Sendable, Hashable {
        /// A member of an object (`properties.customer`).
        case key(String)
        /// Every element of an array (`items`: one schema for all elements).
        case everyElement
        /// The element at a position (`items` as a list of schemas).
        case element(Int)
    }

    /// The steps from the properties object; never empty, and the first is always a key.
    public let path: [Step]
    /// What is done to the value there.
    public let action: PersonalDataAction

    /// A rule.
    public init(path: [Step], action: PersonalDataAction) {
        self.path = path
        self.action = action
    }

    /// `customer.email`, `items[].email`, `pair[1]`: the marked value's place, for people.
    public var place: String {
        var text = ""
        for step in path {
            switch step {
            case .key(let key): text += text.isEmpty ? key : "." + key
            case .everyElement: text += "[]"
            case .element(let index): text += "[\(index)]"
            }
        }
        return text
    }

    /// `customer.email: hash`: the place and the action.
    public var description: String { place + ": " + action.rawValue }
}
