import Foundation
import SwiftSyntax

/// A type declaration or an extension found in the sources: what it conforms to and its members.
final class DeclaredType {
    enum Kind {
        case enumeration, structure, classType, actor, protocolType, extensionOf
    }

    /// The name with its enclosing types (`Outer.Inner`); for extensions the extended type as written.
    let name: String
    let kind: Kind
    /// The names of the inherited types and conformances, without module prefixes (`TrackingEventContract`).
    let inherited: [String]
    let members: MemberBlockSyntax
    let file: ParsedFile
    /// Where the declaration starts.
    let location: SourceLocation

    init(
        name: String,
        kind: Kind,
        inheritance: InheritanceClauseSyntax?,
        members: MemberBlockSyntax,
        file: ParsedFile,
        node: some SyntaxProtocol
    ) {
        self.name = name
        self.kind = kind
        inherited = (inheritance?.inheritedTypes ?? []).flatMap { inherited in
            inherited.type.trimmedDescription.split(separator: "&").map { part in
                let trimmed = part.trimmingCharacters(in: .whitespaces)
                return String(trimmed.split(separator: ".").last ?? Substring(trimmed))
            }
        }
        self.members = members
        self.file = file
        location = file.location(of: node)
    }

    /// The simple name (`Inner` of `Outer.Inner`).
    var simpleName: String { String(name.split(separator: ".").last ?? Substring(name)) }
}
