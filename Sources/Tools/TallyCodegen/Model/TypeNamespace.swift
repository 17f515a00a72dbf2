/// The nested types of one generated type (an event enum or a struct): each gets a name free in
/// that scope, and two properties whose types are declared identically share one declaration.
final class TypeNamespace {
    private(set) var declarations: [NestedDeclaration] = []
    private let names: NameScope

    /// A namespace whose scope already holds `taken` (its members, reserved names).
    init(taken: Set<String>) {
        names = NameScope(reserved: taken.union(TypeNamespace.reservedTypeNames))
    }

    /// Names a nested type must not shadow: the standard types the generated code spells.
    static let reservedTypeNames: Set<String> = [
        "String", "Int", "Double", "Bool", "Array", "Dictionary", "Optional", "Sendable", "Hashable", "Equatable",
        "CaseIterable", "Swift", "Tracking", "TrackingEventContract", "TypedTrackingEventContract", "TrackingValue",
        "TallyTracking", "Never", "Any", "Self", "Type", "Protocol", "Character", "KeyValuePairs",
    ]

    /// Declares `declaration` under the name derived from `name` (prefixed with `prefix` when that is
    /// taken by a different declaration); returns the name used.
    func declare(
        _ make: (String) -> NestedDeclaration,
        name: String,
        prefix: String,
        file: String,
        path: String,
        diagnostics: inout [CodegenDiagnostic]
    ) -> String {
        let plain = SwiftNames.upperCamel(name).identifier
        for candidate in [plain, prefix + plain] {
            let declaration = make(candidate)
            if let existing = declarations.first(where: { $0.name == candidate }) {
                if existing == declaration { return candidate }
                continue
            }
            if names.claimExactly(candidate) {
                declarations.append(declaration)
                return candidate
            }
        }
        let unique = names.claim(
            prefix + plain,
            convert: { SwiftNames.Conversion(identifier: $0, note: nil) },
            what: "type",
            file: file,
            path: path,
            diagnostics: &diagnostics
        )
        declarations.append(make(unique))
        return unique
    }
}
