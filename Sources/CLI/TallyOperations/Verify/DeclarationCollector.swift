import Foundation
import SwiftSyntax

/// Walks one file: every type declaration and extension (with its enclosing types' names), and every
/// `Type.member` reference, the way generated event cases are used (`EpisodeListEvent.viewed`).
final class DeclarationCollector: SyntaxVisitor {
    /// A `Base.member` expression.
    struct MemberReference {
        var base: String
        var member: String
        var location: SourceLocation
    }

    private let file: ParsedFile
    private var enclosing: [String] = []
    private(set) var types: [DeclaredType] = []
    private(set) var references: [MemberReference] = []

    init(file: ParsedFile) {
        self.file = file
        super.init(viewMode: .sourceAccurate)
    }

    private func enter(
        _ name: String,
        _ kind: DeclaredType.Kind,
        _ inheritance: InheritanceClauseSyntax?,
        _ members: MemberBlockSyntax,
        _ node: some SyntaxProtocol
    ) -> SyntaxVisitorContinueKind {
        let qualified = (enclosing + [name]).joined(separator: ".")
        types.append(
            DeclaredType(
                name: kind == .extensionOf ? name : qualified,
                kind: kind,
                inheritance: inheritance,
                members: members,
                file: file,
                node: node
            )
        )
        enclosing.append(name)
        return .visitChildren
    }

    override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind {
        enter(node.name.text, .enumeration, node.inheritanceClause, node.memberBlock, node)
    }
    override func visitPost(_ node: EnumDeclSyntax) { enclosing.removeLast() }

    override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind {
        enter(node.name.text, .structure, node.inheritanceClause, node.memberBlock, node)
    }
    override func visitPost(_ node: StructDeclSyntax) { enclosing.removeLast() }

    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        enter(node.name.text, .classType, node.inheritanceClause, node.memberBlock, node)
    }
    override func visitPost(_ node: ClassDeclSyntax) { enclosing.removeLast() }

    override func visit(_ node: ActorDeclSyntax) -> SyntaxVisitorContinueKind {
        enter(node.name.text, .actor, node.inheritanceClause, node.memberBlock, node)
    }
    override func visitPost(_ node: ActorDeclSyntax) { enclosing.removeLast() }

    override func visit(_ node: ProtocolDeclSyntax) -> SyntaxVisitorContinueKind {
        enter(node.name.text, .protocolType, node.inheritanceClause, node.memberBlock, node)
    }
    override func visitPost(_ node: ProtocolDeclSyntax) { enclosing.removeLast() }

    override func visit(_ node: ExtensionDeclSyntax) -> SyntaxVisitorContinueKind {
        // Extensions are top level: the extended type is named in full.
        let saved = enclosing
        enclosing = []
        let name = node.extendedType.trimmedDescription
        _ = enter(name, .extensionOf, node.inheritanceClause, node.memberBlock, node)
        enclosing = saved + [name]
        return .visitChildren
    }
    override func visitPost(_ node: ExtensionDeclSyntax) { enclosing.removeLast() }

    override func visit(_ node: MemberAccessExprSyntax) -> SyntaxVisitorContinueKind {
        if let base = node.base {
            references.append(
                MemberReference(
                    base: base.trimmedDescription,
                    member: node.declName.baseName.text.trimmingCharacters(in: ["`"]),
                    location: file.location(of: node)
                )
            )
        }
        return .visitChildren
    }
}
