/// The names taken in one Swift scope (a type's members, a case's parameters, the module's types):
/// a name converted from a plan gets a numeric suffix when it would collide, and every change is
/// reported.
final class NameScope {
    private var taken: Set<String>

    /// A scope where `reserved` are already taken (members the generated code declares itself).
    init(reserved: Set<String> = []) {
        taken = reserved
    }

    /// A unique identifier for `name`, converted by `convert`; reports what differs from the
    /// usual conversion into `diagnostics` (at `file`, `path`, describing the name as `what`).
    func claim(
        _ name: String,
        convert: (String) -> SwiftNames.Conversion,
        what: String,
        file: String,
        path: String,
        diagnostics: inout [CodegenDiagnostic]
    ) -> String {
        let conversion = convert(name)
        var identifier = conversion.identifier
        if let note = conversion.note {
            diagnostics.append(
                CodegenDiagnostic(
                    file: file,
                    path: path,
                    message: "\(what) \(name.debugDescription) \(note): generated as \(identifier)"
                )
            )
        }
        if taken.contains(identifier) {
            var suffix = 2
            while taken.contains(identifier + String(suffix)) { suffix += 1 }
            diagnostics.append(
                CodegenDiagnostic(
                    file: file,
                    path: path,
                    message:
                        "\(what) \(name.debugDescription) collides with another name as \(identifier): generated as "
                        + "\(identifier)\(suffix)"
                )
            )
            identifier += String(suffix)
        }
        taken.insert(identifier)
        return identifier
    }

    /// Takes `identifier` as it is, when free; returns whether it was.
    func claimExactly(_ identifier: String) -> Bool {
        taken.insert(identifier).inserted
    }

    /// Whether `identifier` is taken.
    func contains(_ identifier: String) -> Bool {
        taken.contains(identifier)
    }
}
