/// A SchemaVer version, `MODEL-REVISION-ADDITION` (`1-0-0`), compared numerically.
///
/// MODEL changes break every existing event (a property removed, retyped or newly required);
/// REVISION may break some (a constraint tightened); ADDITION breaks none (an optional property
/// added, a constraint relaxed).
public struct SchemaVer: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Breaking changes.
    public var model: Int
    /// Changes that may break some events.
    public var revision: Int
    /// Compatible changes.
    public var addition: Int

    /// Creates a version.
    public init(model: Int, revision: Int, addition: Int) {
        self.model = model
        self.revision = revision
        self.addition = addition
    }

    /// Parses `1-0-0`: MODEL from 1, no leading zeros.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var numbers: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 6, part.allSatisfy(\.isASCII), part.allSatisfy(\.isNumber),
                part == "0" || !part.hasPrefix("0"), let number = Int(part)
            else { return nil }
            numbers.append(number)
        }
        guard numbers[0] >= 1 else { return nil }
        self.init(model: numbers[0], revision: numbers[1], addition: numbers[2])
    }

    public static func < (lhs: SchemaVer, rhs: SchemaVer) -> Bool {
        (lhs.model, lhs.revision, lhs.addition) < (rhs.model, rhs.revision, rhs.addition)
    }

    public var description: String { "\(model)-\(revision)-\(addition)" }

    /// The kind of change from `self` to a later `other`; nil when `other` is not later.
    package func bump(to other: SchemaVer) -> SchemaChange? {
        if other.model > model { return .model }
        guard other.model == model else { return nil }
        if other.revision > revision { return .revision }
        guard other.revision == revision else { return nil }
        return other.addition > addition ? .addition : nil
    }
}

/// The three kinds of SchemaVer change, ordered by how much they break.
package enum SchemaChange: Int, Comparable, Sendable, CustomStringConvertible {
    case addition, revision, model

    package static func < (lhs: SchemaChange, rhs: SchemaChange) -> Bool { lhs.rawValue < rhs.rawValue }

    package var description: String {
        switch self {
        case .addition: "ADDITION"
        case .revision: "REVISION"
        case .model: "MODEL"
        }
    }
}
