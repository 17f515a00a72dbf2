import TallyCore

extension JSONSchema {
    /// Converts a property value to this schema's declared type, when the plan normalizes strings,
    /// and checks it.
    ///
    /// With `coerceStrings`, strings are read as the declared type (`"42"` satisfies `integer` and
    /// becomes `42`): for producers that can only send strings (`TrackingEventContract`). Without
    /// it, plain JSON Schema semantics. Raw JSON is checked first from its text with `textPlan`
    /// (compiled here when not given). Never infers a type. Objects, arrays, numbers kept in their
    /// original spelling and schemas beyond the scalar keywords are validated as JSON values.
    func normalize(
        _ value: PropertyValue,
        coerceStrings: Bool = true,
        textPlan: @autoclosure () -> SchemaTextPlan? = nil,
        path: @autoclosure () -> String,
        into violations: inout [EventViolation]
    ) -> PropertyValue {
        var value = value
        if coerceStrings, case .string(let text) = value, let container = containerFromText(text) { value = container }
        if case .json(let raw) = value {
            if !(textPlan() ?? SchemaTextPlan(self)).accepts(raw) {
                appendViolations(of: value, path: path(), into: &violations)
            }
            return value
        }
        if !isScalarOnly {
            var converted = value
            if coerceStrings, case .string = value, let scalar = convert(value, coerceStrings: true) {
                converted = scalar
            }
            appendViolations(of: converted, path: path(), into: &violations)
            return converted
        }
        guard let converted = convert(value, coerceStrings: coerceStrings) else {
            let expected = (types ?? []).map(\.rawValue).sorted().joined(separator: " or ")
            violations.append(
                EventViolation(.typeMismatch, path: path(), message: "expected \(expected), got \(value.typeName)")
            )
            return value
        }
        if enumValues != nil || constValue != nil {
            if let enumValues, !enumValues.contains(where: { Self.scalar(converted, equals: $0) }) {
                violations.append(EventViolation(.enumMismatch, path: path(), message: "not one of the allowed values"))
            }
            if let constValue, !Self.scalar(converted, equals: constValue) {
                violations.append(EventViolation(.enumMismatch, path: path(), message: "not the required constant"))
            }
        }
        switch converted {
        case .string(let string): checkString(string, path: path(), into: &violations)
        case .integer(let integer): checkNumber(Double(integer), path: path(), into: &violations)
        case .number(let number): checkNumber(number, path: path(), into: &violations)
        default: break
        }
        return converted
    }

    /// A string holding a JSON object or array, read as one where this schema declares that type and
    /// not `string`: `TrackingEventContract` can only send strings, so nested values (generated
    /// structs and arrays) arrive as their JSON text. Anything else stays a string.
    private func containerFromText(_ text: String) -> PropertyValue? {
        guard types != nil, !declares(.string), declares(.object) || declares(.array),
            let first = text.utf8.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }),
            first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
            let parsed = try? JSONParser.parse(text)
        else { return nil }
        switch parsed {
        case .object where declares(.object), .array where declares(.array): return .json(RawJSON(parsed))
        default: return nil
        }
    }

    private func appendViolations(of value: PropertyValue, path: String, into violations: inout [EventViolation]) {
        for violation in self.violations(of: value.jsonValue, path: path) {
            violations.append(
                EventViolation(
                    ReasonCode(schemaKeyword: violation.keyword.rawValue),
                    path: violation.path,
                    message: violation.message
                )
            )
        }
    }

    private func convert(_ value: PropertyValue, coerceStrings: Bool) -> PropertyValue? {
        guard types != nil else { return value }
        // `Optional.none`, spelled out: a bare `nil` here would be `PropertyValue.null` (the type is
        // ExpressibleByNilLiteral), which let null through for every non-nullable type.
        if case .null = value { return declares(.null) ? value : Optional<PropertyValue>.none }
        if declares(.string) {
            if case .string = value { return value }
        }
        if declares(.integer) {
            switch value {
            case .integer: return value
            case .number(let number) where number.isFinite && number == number.rounded() && abs(number) < 9.2e18:
                return .integer(Int64(number))
            case .string(let string) where coerceStrings:
                if let integer = Int64(string) { return .integer(integer) }
            default: break
            }
        }
        if declares(.number) {
            switch value {
            case .integer, .number: return value
            case .string(let string) where coerceStrings:
                if let integer = Int64(string) { return .integer(integer) }
                if let number = Self.jsonNumber(string) { return .number(number) }
            default: break
            }
        }
        if declares(.boolean) {
            switch value {
            case .bool: return value
            case .string("true") where coerceStrings: return .bool(true)
            case .string("false") where coerceStrings: return .bool(false)
            default: break
            }
        }
        return nil
    }

    /// A string holding a JSON number (`-1.5e3`; not `+1`, `.5`, `1.` or `0x1`), as a finite double.
    ///
    /// Short decimals without exponent take Clinger's fast path (an integer mantissa below 2^53
    /// divided by an exact power of ten is correctly rounded); the rest goes to `Double(_:)`.
    private static func jsonNumber(_ string: String) -> Double? {
        var utf8 = string.utf8.makeIterator()
        var byte = utf8.next()
        var mantissa: UInt64 = 0
        var digitCount = 0
        var fractionDigits = 0
        func skipDigits(fraction: Bool) -> Int {
            var count = 0
            while let current = byte, current &- UInt8(ascii: "0") < 10 {
                if digitCount < 19 { mantissa = mantissa &* 10 &+ UInt64(current &- UInt8(ascii: "0")) }
                digitCount += 1
                if fraction { fractionDigits += 1 }
                count += 1
                byte = utf8.next()
            }
            return count
        }
        let negative = byte == UInt8(ascii: "-")
        if negative { byte = utf8.next() }
        if byte == UInt8(ascii: "0") {
            digitCount += 1
            byte = utf8.next()
        } else if skipDigits(fraction: false) == 0 {
            return nil
        }
        if byte == UInt8(ascii: ".") {
            byte = utf8.next()
            guard skipDigits(fraction: true) > 0 else { return nil }
        }
        var hasExponent = false
        if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            hasExponent = true
            byte = utf8.next()
            if byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") { byte = utf8.next() }
            let savedCount = digitCount
            guard skipDigits(fraction: false) > 0 else { return nil }
            digitCount = savedCount
        }
        guard byte == nil else { return nil }
        if !hasExponent, digitCount <= 15, fractionDigits < Self.powersOfTen.count {
            let value = Double(mantissa) / Self.powersOfTen[fractionDigits]
            return negative ? -value : value
        }
        guard let number = Double(string), number.isFinite else { return nil }
        return number
    }

    private static let powersOfTen: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    private func checkString(_ string: String, path: @autoclosure () -> String, into violations: inout [EventViolation])
    {
        if minLength != nil || maxLength != nil {
            let length = string.unicodeScalars.count
            if let minLength, length < minLength {
                violations.append(EventViolation(.outOfRange, path: path(), message: "shorter than \(minLength)"))
            }
            if let maxLength, length > maxLength {
                violations.append(EventViolation(.outOfRange, path: path(), message: "longer than \(maxLength)"))
            }
        }
        if let pattern, !pattern.matches(string) {
            violations.append(
                EventViolation(.patternMismatch, path: path(), message: "does not match \(pattern.source)")
            )
        }
        if let format, !format.matches(string) {
            violations.append(EventViolation(.formatMismatch, path: path(), message: "not a valid \(format.rawValue)"))
        }
    }

    private func checkNumber(_ number: Double, path: @autoclosure () -> String, into violations: inout [EventViolation])
    {
        var schemaViolations: [SchemaViolation] = []
        validateNumber(number, path: "", into: &schemaViolations)
        for violation in schemaViolations {
            violations.append(EventViolation(.outOfRange, path: path(), message: violation.message))
        }
    }

    private static func scalar(_ value: PropertyValue, equals json: JSONValue) -> Bool {
        switch (value, json) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        // `==` is canonical equivalence, coarser than byte equality: a cheap first filter.
        case (.string(let a), .string(let b)): return a == b && a.utf8.elementsEqual(b.utf8)
        case (.integer(let a), .number(let b)):
            if let integer = b.int64Value { return a == integer }
            return Double(a) == b.doubleValue
        case (.number(let a), .number(let b)): return a == b.doubleValue
        default: return false
        }
    }
}
