// TEMPORARY until the schema-keywords branch lands (it defines isScalarOnly).
extension JSONSchema {
    var isScalarOnly: Bool { properties.isEmpty && required.isEmpty }
}
