import TallyCore

extension JSONSchema {
    /// JSON equality: numbers by value (`1 == 1.0`), objects regardless of member order.
    static func jsonEqual(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        // Code points, not Swift's canonical equivalence: "é" and "e\u{301}" are different JSON strings.
        case (.string(let a), .string(let b)): return a.utf8.elementsEqual(b.utf8)
        case (.number(let a), .number(let b)):
            if let x = a.int64Value, let y = b.int64Value { return x == y }
            return a.doubleValue == b.doubleValue
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { jsonEqual($0, $1) }
        case (.object(let a), .object(let b)):
            let left = Dictionary(a.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
            let right = Dictionary(b.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
            return left.count == right.count
                && left.allSatisfy { key, value in right[key].map { jsonEqual(value, $0) } ?? false }
        default: return false
        }
    }

    /// Hashes `value` consistently with ``jsonEqual(_:_:)``: values it calls equal hash equally.
    static func jsonHash(_ value: JSONValue, into hasher: inout Hasher) {
        switch value {
        case .null: hasher.combine(0)
        case .bool(let bool):
            hasher.combine(1)
            hasher.combine(bool)
        case .string(let string):
            // String hashing is coarser than code-point equality (canonical equivalence): fine for a hash.
            hasher.combine(2)
            hasher.combine(string)
        case .number(let number):
            // Equal numbers have equal doubles (integers compare exactly, but also convert equally).
            hasher.combine(3)
            let double = number.doubleValue
            hasher.combine(double == 0 ? 0 : double)
        case .array(let elements):
            hasher.combine(4)
            hasher.combine(elements.count)
            for element in elements { jsonHash(element, into: &hasher) }
        case .object(let members):
            // Member order does not matter, and the last of duplicate names wins: sum the members' hashes.
            hasher.combine(5)
            let unique = Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
            var sum = 0
            for (key, member) in unique {
                var memberHasher = Hasher()
                memberHasher.combine(key)
                jsonHash(member, into: &memberHasher)
                sum &+= memberHasher.finalize()
            }
            hasher.combine(unique.count)
            hasher.combine(sum)
        }
    }
}
