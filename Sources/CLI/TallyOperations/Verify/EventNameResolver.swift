import SwiftSyntax

/// Works out which event names a `TrackingEventContract` type produces from its `name` member,
/// without running anything: string literals, `switch` / `if` / `?:` over them, `return`s of them,
/// `static let`s and stored constants holding them, and `rawValue` of an enum with `String` raw
/// values. Anything else (interpolation, a function call, a value from elsewhere) is reported as
/// unresolved, with its line, rather than guessed.
struct EventNameResolver {
    /// A name the code produces, and where.
    struct Produced: Hashable {
        var name: String
        var location: SourceLocation
    }

    /// What one `name` yields: the names it certainly produces, and what could not be told.
    struct Outcome {
        var names: [Produced] = []
        var unresolved: [VerifyReport.Unresolved] = []

        mutating func add(_ other: Outcome) {
            names += other.names
            unresolved += other.unresolved
        }
    }

    /// Every declaration and extension, by type name as written.
    let types: [String: [DeclaredType]]

    /// The names `type`'s `name` member produces.
    func names(of type: String) -> Outcome {
        guard let (member, declaration) = member("name", of: type) else {
            let location = types[type]?.first?.location
            return unresolved(
                location ?? SourceLocation(file: "?", line: 0),
                "\(type) conforms to TrackingEventContract but declares no `name` in these sources "
                    + "(a protocol extension or another package?)"
            )
        }
        return evaluate(member: member, in: type, file: declaration.file, depth: 0)
    }

    private func member(_ name: String, of type: String) -> (PatternBindingSyntax, DeclaredType)? {
        for declaration in types[type] ?? [] {
            for item in declaration.members.members {
                guard let variable = item.decl.as(VariableDeclSyntax.self) else { continue }
                for binding in variable.bindings
                where binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text == name {
                    return (binding, declaration)
                }
            }
        }
        return nil
    }

    private func evaluate(member binding: PatternBindingSyntax, in type: String, file: ParsedFile, depth: Int)
        -> Outcome
    {
        if let value = binding.initializer?.value {
            return evaluate(value, in: type, file: file, depth: depth + 1)
        }
        switch binding.accessorBlock?.accessors {
        case .getter(let statements)?:
            return evaluate(statements, in: type, file: file, depth: depth + 1)
        case .accessors(let accessors)?:
            if let getter = accessors.first(where: { $0.accessorSpecifier.text == "get" }), let body = getter.body {
                return evaluate(body.statements, in: type, file: file, depth: depth + 1)
            }
        case nil:
            break
        }
        return unresolved(
            file.location(of: binding),
            "\(type).\(binding.pattern.trimmedDescription) is a stored property set elsewhere (an initializer): "
                + "give it a string literal, or make it computed from literals"
        )
    }

    private func evaluate(_ statements: CodeBlockItemListSyntax, in type: String, file: ParsedFile, depth: Int)
        -> Outcome
    {
        if statements.count == 1, let item = statements.first {
            switch item.item {
            case .expr(let expression): return evaluate(expression, in: type, file: file, depth: depth)
            case .stmt(let statement):
                if let expression = statement.as(ExpressionStmtSyntax.self)?.expression {
                    return evaluate(expression, in: type, file: file, depth: depth)
                }
            default: break
            }
        }
        let collector = ReturnCollector(viewMode: .sourceAccurate)
        collector.walk(statements)
        guard !collector.returned.isEmpty else {
            return unresolved(
                file.location(of: statements),
                "\(type).name returns nothing verify can read (no single expression, no `return`)"
            )
        }
        var outcome = Outcome()
        for expression in collector.returned {
            outcome.add(evaluate(expression, in: type, file: file, depth: depth))
        }
        return outcome
    }

    private func evaluate(_ expression: ExprSyntax, in type: String, file: ParsedFile, depth: Int) -> Outcome {
        let location = file.location(of: expression)
        guard depth < 8 else { return unresolved(location, "\(type).name refers to itself too deeply") }
        if let literal = expression.as(StringLiteralExprSyntax.self) {
            if let value = literal.representedLiteralValue {
                return Outcome(names: [Produced(name: value, location: location)])
            }
            return unresolved(
                location,
                "\(type).name is built by string interpolation (\(Self.excerpt(expression))): cannot tell which "
                    + "events it produces"
            )
        }
        if let switchExpression = expression.as(SwitchExprSyntax.self) {
            var outcome = Outcome()
            for case .switchCase(let switchCase) in switchExpression.cases {
                outcome.add(evaluate(switchCase.statements, in: type, file: file, depth: depth))
            }
            return outcome
        }
        if let ifExpression = expression.as(IfExprSyntax.self) {
            var outcome = evaluate(ifExpression.body.statements, in: type, file: file, depth: depth)
            switch ifExpression.elseBody {
            case .ifExpr(let next)?: outcome.add(evaluate(ExprSyntax(next), in: type, file: file, depth: depth))
            case .codeBlock(let block)?: outcome.add(evaluate(block.statements, in: type, file: file, depth: depth))
            case nil: break
            }
            return outcome
        }
        if let sequence = expression.as(SequenceExprSyntax.self), sequence.elements.count == 3,
            let ternary = Array(sequence.elements)[1].as(UnresolvedTernaryExprSyntax.self),
            let last = sequence.elements.last
        {
            var outcome = evaluate(ternary.thenExpression, in: type, file: file, depth: depth)
            outcome.add(evaluate(last, in: type, file: file, depth: depth))
            return outcome
        }
        if let tuple = expression.as(TupleExprSyntax.self), tuple.elements.count == 1, let only = tuple.elements.first {
            return evaluate(only.expression, in: type, file: file, depth: depth)
        }
        if let reference = expression.as(DeclReferenceExprSyntax.self) {
            return lookup(reference.baseName.text, in: type, location: location, depth: depth)
        }
        if let access = expression.as(MemberAccessExprSyntax.self), let base = access.base?.trimmedDescription {
            let member = access.declName.baseName.text
            let simple = String(type.split(separator: ".").last ?? Substring(type))
            if base == "self" || base == "Self" || base == type || base == simple {
                return lookup(member, in: type, location: location, depth: depth)
            }
            if types[base] != nil { return lookup(member, in: base, location: location, depth: depth) }
        }
        return unresolved(
            location,
            "\(type).name is computed (\(Self.excerpt(expression))): cannot tell which events it produces; "
                + "use string literals"
        )
    }

    /// A member named `name` of `type` (a `static let`, a stored constant, `rawValue`).
    private func lookup(_ name: String, in type: String, location: SourceLocation, depth: Int) -> Outcome {
        if name == "rawValue", let raw = rawValues(of: type) { return raw }
        if let (binding, declaration) = member(name, of: type) {
            return evaluate(member: binding, in: type, file: declaration.file, depth: depth + 1)
        }
        return unresolved(location, "\(type).name uses \(name), which verify cannot find in these sources")
    }

    /// The raw values of `type` when it is an enum with `String` raw values.
    private func rawValues(of type: String) -> Outcome? {
        guard let declaration = types[type]?.first(where: { $0.kind == .enumeration }),
            declaration.inherited.first == "String"
        else { return nil }
        var outcome = Outcome()
        for item in declaration.members.members {
            guard let cases = item.decl.as(EnumCaseDeclSyntax.self) else { continue }
            for element in cases.elements {
                let location = declaration.file.location(of: element)
                if let raw = element.rawValue?.value {
                    outcome.add(evaluate(raw, in: type, file: declaration.file, depth: 7))
                } else {
                    outcome.names.append(Produced(name: element.name.text, location: location))
                }
            }
        }
        return outcome
    }

    private func unresolved(_ location: SourceLocation, _ message: String) -> Outcome {
        Outcome(unresolved: [VerifyReport.Unresolved(location: location, message: message)])
    }

    private static func excerpt(_ expression: ExprSyntax) -> String {
        let text = expression.trimmedDescription.split(separator: "\n").first.map(String.init) ?? ""
        return text.count > 48 ? String(text.prefix(45)) + "…" : text
    }
}

/// The expressions a getter returns, not counting those of closures and nested functions.
private final class ReturnCollector: SyntaxVisitor {
    private(set) var returned: [ExprSyntax] = []

    override func visit(_ node: ReturnStmtSyntax) -> SyntaxVisitorContinueKind {
        if let expression = node.expression { returned.append(expression) }
        return .skipChildren
    }

    override func visit(_ node: ClosureExprSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
    override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
}
