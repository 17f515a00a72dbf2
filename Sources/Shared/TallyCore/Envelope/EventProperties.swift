#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An event's properties: string keys to scalar values.
///
/// Three representations: the `[String: String]` a `TrackingEventContract` hands over, kept as it
/// is so that `track()` copies nothing; typed values as key-value pairs sorted by the keys'
/// bytes, which is the order tally writes them in (so equal events encode to equal bytes) and,
/// for the handful of properties an event has, faster to build and search than a dictionary;
/// and a JSON source's object text as it arrived (``PropertyText``), which writers copy and the
/// validator checks without reading a value. Every representation of the same properties is
/// equal and encodes to the same bytes.
public struct EventProperties: Hashable, Sendable {
    /// One property.
    public typealias Pair = (key: String, value: PropertyValue)

    // @unchecked: for `text`, a `ManagedBuffer` never mutated once made (see PropertyText).
    private enum Storage: @unchecked Sendable {
        case strings([String: String])
        case pairs([Pair])
        case text(PropertyText)
    }

    private var storage: Storage

    /// No properties.
    public init() {
        storage = .pairs([])
    }

    /// String properties, as a `TrackingEventContract` gives them.
    public init(strings: [String: String]) {
        storage = .strings(strings)
    }

    /// Typed properties.
    public init(_ values: [String: PropertyValue]) {
        storage = .pairs(values.map { (key: $0.key, value: $0.value) }.sorted { Self.byteOrder($0.key, $1.key) })
    }

    /// Typed properties from pairs with distinct keys, in any order.
    public init(pairs: [Pair]) {
        var sorted = pairs
        Self.sortByKeyBytes(&sorted)
        storage = .pairs(sorted)
    }

    /// Sorts pairs by ``byteOrder(_:_:)`` in place.
    package static func sortByKeyBytes(_ pairs: inout [Pair]) {
        if pairs.count <= 24 {
            // Insertion sort by swaps in the buffer: events have a handful of properties, often
            // already in order; the standard library's sort costs an allocation and a closure
            // call per comparison, and moving pairs through the array retains and releases them.
            pairs.withUnsafeMutableBufferPointer { buffer in
                for index in buffer.indices.dropFirst() {
                    var position = index
                    while position > 0, Self.byteOrder(buffer[position].key, buffer[position - 1].key) {
                        buffer.swapAt(position, position - 1)
                        position -= 1
                    }
                }
            }
        } else {
            pairs.sort { Self.byteOrder($0.key, $1.key) }
        }
    }

    /// Typed properties from pairs already sorted by ``byteOrder(_:_:)`` with distinct keys.
    package init(sortedPairs: [Pair]) {
        storage = .pairs(sortedPairs)
    }

    /// Properties kept as their object text.
    package init(text: PropertyText) {
        storage = .text(text)
    }

    /// Whether these are the strings of ``init(strings:)``, as a `TrackingEventContract` gives them.
    package var holdsStrings: Bool {
        if case .strings = storage { return true }
        return false
    }

    /// The object text, when the properties are kept so.
    package var text: PropertyText? {
        if case .text(let text) = storage { return text }
        return nil
    }

    /// The number of properties.
    public var count: Int {
        switch storage {
        case .strings(let strings): strings.count
        case .pairs(let pairs): pairs.count
        case .text(let text): text.count
        }
    }

    /// Whether there are none.
    public var isEmpty: Bool { count == 0 }

    /// The value for a key.
    public subscript(key: String) -> PropertyValue? {
        get {
            // String properties first, on their own: the validator looks each declared property up
            // here, and a switch over all three representations copied the storage each time.
            if case .strings(let strings) = storage { return strings[key].map(PropertyValue.string) }
            return typedValue(of: key)
        }
        set {
            var pairs = sortedPairs
            if let index = pairs.firstIndex(where: { $0.key == key }) {
                if let newValue { pairs[index].value = newValue } else { pairs.remove(at: index) }
            } else if let newValue {
                let index = pairs.firstIndex { Self.byteOrder(key, $0.key) } ?? pairs.endIndex
                pairs.insert((key, newValue), at: index)
            }
            storage = .pairs(pairs)
        }
    }

    private func typedValue(of key: String) -> PropertyValue? {
        switch storage {
        case .strings(let strings): strings[key].map(PropertyValue.string)
        case .pairs(let pairs): pairs.first { $0.key == key }?.value
        case .text(let text): text.value(of: key)
        }
    }

    /// Whether `key` is present.
    public func contains(_ key: String) -> Bool {
        switch storage {
        case .strings(let strings): strings[key] != nil
        case .pairs(let pairs): pairs.contains { $0.key == key }
        case .text(let text): text.contains(key)
        }
    }

    /// Every property as a typed value.
    public var values: [String: PropertyValue] {
        switch storage {
        case .strings(let strings): strings.mapValues(PropertyValue.string)
        case .pairs(let pairs): Dictionary(pairs.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
        case .text(let text): Dictionary(text.pairs.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
        }
    }

    /// The properties in key byte order.
    public var sortedPairs: [Pair] {
        switch storage {
        case .strings(let strings):
            strings.map { (key: $0.key, value: PropertyValue.string($0.value)) }.sorted {
                Self.byteOrder($0.key, $1.key)
            }
        case .pairs(let pairs): pairs
        case .text(let text): text.pairs
        }
    }

    /// The typed pairs in key byte order (read from the text for ``PropertyText``): nil for
    /// string properties, which are better read one by one than converted all at once.
    package var sortedPairsIfStored: [Pair]? {
        if case .pairs(let pairs) = storage { return pairs }
        return text?.pairs
    }

    /// The keys in byte order.
    public var sortedKeys: [String] { sortedPairs.map(\.key) }

    /// Calls `body` for each property, in no particular order (no sorting, no copies).
    public func forEach(_ body: (String, PropertyValue) throws -> Void) rethrows {
        switch storage {
        case .strings(let strings):
            for (key, value) in strings { try body(key, .string(value)) }
        case .pairs(let pairs):
            for pair in pairs { try body(pair.key, pair.value) }
        case .text(let text):
            for pair in text.pairs { try body(pair.key, pair.value) }
        }
    }

    /// Calls `body` for each property in key byte order.
    public func forEachSorted(_ body: (String, PropertyValue) throws -> Void) rethrows {
        switch storage {
        case .strings, .text:
            for pair in sortedPairs { try body(pair.key, pair.value) }
        case .pairs(let pairs):
            for pair in pairs { try body(pair.key, pair.value) }
        }
    }

    /// Byte order of the keys' UTF-8, the order tally writes properties in.
    package static func byteOrder(_ lhs: String, _ rhs: String) -> Bool {
        var lhs = lhs
        var rhs = rhs
        return lhs.withUTF8 { left in
            rhs.withUTF8 { right in
                let common = Swift.min(left.count, right.count)
                let order = common == 0 ? 0 : memcmp(left.baseAddress!, right.baseAddress!, common)
                return order != 0 ? order < 0 : left.count < right.count
            }
        }
    }

    public static func == (lhs: EventProperties, rhs: EventProperties) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case (.strings(let a), .strings(let b)): return a == b
        default:
            let left = lhs.sortedPairs
            let right = rhs.sortedPairs
            return left.count == right.count && zip(left, right).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for pair in sortedPairs {
            hasher.combine(pair.key)
            hasher.combine(pair.value)
        }
    }
}

extension EventProperties: Sequence {
    /// Iterates the properties in no particular order, without sorting or copying.
    public struct Iterator: IteratorProtocol {
        fileprivate enum Base {
            case strings(Dictionary<String, String>.Iterator)
            case pairs(IndexingIterator<[Pair]>)
        }

        fileprivate var base: Base

        public mutating func next() -> Pair? {
            switch base {
            case .strings(var iterator):
                defer { base = .strings(iterator) }
                return iterator.next().map { (key: $0.key, value: PropertyValue.string($0.value)) }
            case .pairs(var iterator):
                defer { base = .pairs(iterator) }
                return iterator.next()
            }
        }
    }

    public func makeIterator() -> Iterator {
        switch storage {
        case .strings(let strings): Iterator(base: .strings(strings.makeIterator()))
        case .pairs(let pairs): Iterator(base: .pairs(pairs.makeIterator()))
        case .text(let text): Iterator(base: .pairs(text.pairs.makeIterator()))
        }
    }

    public var underestimatedCount: Int { count }
}

extension EventProperties: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, PropertyValue)...) {
        self.init(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
