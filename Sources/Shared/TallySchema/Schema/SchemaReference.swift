/// The schema a `$ref` points to.
///
/// A recursive schema cannot be built bottom-up from immutable values: the `$ref` inside it must
/// exist before the schema it points to is finished. So the reference is a box the compiler fills
/// in once, when the target is compiled.
///
/// `@unchecked Sendable` is sound because of how the box is used, not because of a lock: it is
/// written only by ``SchemaCompilation``, on one thread, before any ``JSONSchema`` that can reach
/// it is returned from the compiler; from then on it is only read. Handing the compiled schema to
/// another thread (through an actor, a task, a lock) orders that write before every read there.
final class SchemaReference: @unchecked Sendable {
    /// The `$ref` as written, for messages.
    let text: String
    private var resolved: JSONSchema?

    init(_ text: String) {
        self.text = text
    }

    /// The target. Always set once compilation has returned.
    var target: JSONSchema {
        resolved!
    }

    /// Whether ``resolve(to:)`` has been called.
    var isResolved: Bool { resolved != nil }

    /// Sets the target; called exactly once, by the compiler.
    func resolve(to schema: JSONSchema) {
        precondition(resolved == nil, "a $ref is resolved once")
        resolved = schema
    }
}
