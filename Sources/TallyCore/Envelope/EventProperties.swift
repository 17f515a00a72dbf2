/// An event's properties: string keys to scalar values.
///
/// Keeps the `[String: String]` a `TrackingEventContract` hands over as it is, so that `track()`
/// copies nothing; the values are read as ``PropertyValue/string(_:)`` when the pipeline gets to them.
public struct EventProperties: Hashable, Sendable {
    private enum Storage: Hashable, Sendable {
        case strings([String: String])
        case values([String: PropertyValue])
    }

    private var storage: Storage

    /// No properties.
    public init() {
        storage = .strings([:])
    }

    /// String properties, as a `TrackingEventContract` gives them.
    public init(strings: [String: String]) {
        storage = .strings(strings)
    }

    /// Typed properties.
    public init(_ values: [String: PropertyValue]) {
        storage = .values(values)
    }

    /// The number of properties.
    public var count: Int {
        switch storage {
        case .strings(let strings): strings.count
        case .values(let values): values.count
        }
    }

    /// Whether there are none.
    public var isEmpty: Bool { count == 0 }

    /// The value for a key.
    public subscript(key: String) -> PropertyValue? {
        get {
            switch storage {
            case .strings(let strings): strings[key].map(PropertyValue.string)
            case .values(let values): values[key]
            }
        }
        set {
            var values = self.values
            values[key] = newValue
            storage = .values(values)
        }
    }

    /// Every property as a typed value.
    public var values: [String: PropertyValue] {
        switch storage {
        case .strings(let strings): strings.mapValues(PropertyValue.string)
        case .values(let values): values
        }
    }

    /// The keys in byte order: the order tally writes them in, so equal events encode to equal bytes.
    public var sortedKeys: [String] {
        switch storage {
        case .strings(let strings): strings.keys.sorted(by: Self.byteOrder)
        case .values(let values): values.keys.sorted(by: Self.byteOrder)
        }
    }

    /// Calls `body` for each property, in no particular order (no sorting, no copies).
    public func forEach(_ body: (String, PropertyValue) throws -> Void) rethrows {
        switch storage {
        case .strings(let strings):
            for (key, value) in strings { try body(key, .string(value)) }
        case .values(let values):
            for (key, value) in values { try body(key, value) }
        }
    }

    /// Whether `key` is present.
    public func contains(_ key: String) -> Bool {
        switch storage {
        case .strings(let strings): strings[key] != nil
        case .values(let values): values[key] != nil
        }
    }

    /// Calls `body` for each property in ``sortedKeys`` order.
    public func forEachSorted(_ body: (String, PropertyValue) throws -> Void) rethrows {
        switch storage {
        case .strings(let strings):
            for key in strings.keys.sorted(by: Self.byteOrder) { try body(key, .string(strings[key]!)) }
        case .values(let values):
            for key in values.keys.sorted(by: Self.byteOrder) { try body(key, values[key]!) }
        }
    }

    private static func byteOrder(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }

    public static func == (lhs: EventProperties, rhs: EventProperties) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case (.strings(let a), .strings(let b)): a == b
        case (.values(let a), .values(let b)): a == b
        default: lhs.values == rhs.values
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(values)
    }
}

extension EventProperties: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, PropertyValue)...) {
        self.init(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
