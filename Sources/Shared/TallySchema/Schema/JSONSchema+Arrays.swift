import TallyCore

extension JSONSchema {
    /// `items`, `additionalItems`, `minItems`, `maxItems`, `uniqueItems`, `contains`.
    final class ArrayKeywords: Sendable {
        /// `items`: one schema for every element, or one per position.
        enum Items: Sendable {
            case every(JSONSchema)
            case tuple([JSONSchema])
        }

        /// `additionalItems`, which only counts after tuple-form `items`.
        enum AdditionalItems: Sendable {
            case allowed
            case forbidden
            case schema(JSONSchema)
        }

        let items: Items?
        let additionalItems: AdditionalItems
        let minItems: Int?
        let maxItems: Int?
        let uniqueItems: Bool
        let contains: JSONSchema?

        init(
            items: Items?,
            additionalItems: AdditionalItems,
            minItems: Int?,
            maxItems: Int?,
            uniqueItems: Bool,
            contains: JSONSchema?
        ) {
            self.items = items
            self.additionalItems = additionalItems
            self.minItems = minItems
            self.maxItems = maxItems
            self.uniqueItems = uniqueItems
            self.contains = contains
        }
    }

    @inline(never)
    func validateArray(
        _ elements: [JSONValue],
        path: @autoclosure () -> String,
        into violations: inout [SchemaViolation]
    ) {
        guard let keywords = arrayKeywords else { return }
        if let minItems = keywords.minItems, elements.count < minItems {
            violations.append(.init(keyword: .minItems, path: path(), message: "has fewer than \(minItems) items"))
        }
        if let maxItems = keywords.maxItems, elements.count > maxItems {
            violations.append(.init(keyword: .maxItems, path: path(), message: "has more than \(maxItems) items"))
        }
        switch keywords.items {
        case nil: break
        case .every(let schema)?:
            for (index, element) in elements.enumerated() {
                schema.validate(element, path: "\(path())[\(index)]", into: &violations)
            }
        case .tuple(let schemas)?:
            for (index, element) in elements.enumerated() {
                if index < schemas.count {
                    schemas[index].validate(element, path: "\(path())[\(index)]", into: &violations)
                    continue
                }
                switch keywords.additionalItems {
                case .allowed: break
                case .forbidden:
                    violations.append(
                        .init(
                            keyword: .additionalItems,
                            path: "\(path())[\(index)]",
                            message: "is beyond the \(schemas.count) items the schema declares"
                        )
                    )
                case .schema(let schema): schema.validate(element, path: "\(path())[\(index)]", into: &violations)
                }
            }
        }
        if keywords.uniqueItems, let (first, second) = Self.firstDuplicate(in: elements) {
            violations.append(
                .init(keyword: .uniqueItems, path: path(), message: "items \(first) and \(second) are equal")
            )
        }
        if let contains = keywords.contains, !elements.contains(where: { contains.isValid($0, path: path()) }) {
            violations.append(.init(keyword: .contains, path: path(), message: "no item matches the contains schema"))
        }
    }

    /// The positions of the first two equal elements (JSON equality), if any.
    static func firstDuplicate(in elements: [JSONValue]) -> (Int, Int)? {
        // Pairwise is cheapest for the short arrays events carry; hashing bounds the long ones.
        if elements.count <= 16 {
            for second in elements.indices {
                for first in 0..<second where jsonEqual(elements[first], elements[second]) {
                    return (first, second)
                }
            }
            return nil
        }
        var buckets: [Int: [Int]] = [:]
        for (index, element) in elements.enumerated() {
            var hasher = Hasher()
            jsonHash(element, into: &hasher)
            let key = hasher.finalize()
            if let first = buckets[key]?.first(where: { jsonEqual(elements[$0], element) }) {
                return (first, index)
            }
            buckets[key, default: []].append(index)
        }
        return nil
    }
}
