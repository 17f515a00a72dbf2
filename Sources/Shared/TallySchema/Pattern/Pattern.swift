/// A JSON Schema `pattern`: an ECMA-262 regular expression, compiled once when the registry loads.
///
/// Patterns in the common subset run on tally's own linear-time matcher (``PatternProgram``),
/// about ten times faster than `Regex` or `NSRegularExpression` here (~1 µs a match); the rest
/// (lookaround, back-references) fall back to Swift's `Regex`, still compiled once.
package final class Pattern: Sendable, CustomStringConvertible {
    /// The pattern as written in the schema.
    package let source: String
    private let program: PatternProgram?
    private let fallback: FallbackRegex?

    /// Compiles `source`.
    /// - Throws: ``PatternError`` when it is not a valid ECMA-262 pattern.
    package init(_ source: String) throws(PatternError) {
        self.source = source
        do {
            program = try PatternProgram(try PatternParser.parse(source))
            fallback = nil
        } catch {
            switch error {
            case .unsupported:
                program = nil
                guard let regex = FallbackRegex(source) else {
                    throw PatternError(.unsupported, source: source, reason: "not supported")
                }
                fallback = regex
            case .invalid(let reason):
                throw PatternError(.invalid, source: source, reason: reason)
            }
        }
    }

    /// Whether the engine is the fast one.
    package var isNative: Bool { program != nil }

    /// Whether the pattern matches somewhere in `string` (JSON Schema patterns are not anchored).
    package func matches(_ string: String) -> Bool {
        guard let program else { return fallback!.matches(string) }
        var string = string
        // ASCII (the usual case for ids and codes): the UTF-8 bytes are the scalars.
        if let result = string.withUTF8({ bytes -> Bool? in
            guard !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
            return Self.run(program, bytes)
        }) {
            return result
        }
        return Self.withScalars(string) { Self.run(program, $0) }
    }

    /// ``matches(_:)`` for valid UTF-8 bytes: ASCII goes to the matcher without making a `String`.
    package func matches(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let program, !bytes.contains(where: { $0 >= 0x80 }) else {
            return matches(String(decoding: bytes, as: UTF8.self))
        }
        return Self.run(program, bytes)
    }

    private static func run<Unit: FixedWidthInteger & UnsignedInteger>(
        _ program: PatternProgram,
        _ scalars: UnsafeBufferPointer<Unit>
    ) -> Bool {
        if program.isSequence { return program.matchesInSequence(scalars) }
        return PatternScratch.with(size: program.instructions.count) { program.matches(scalars, scratch: &$0) }
    }

    private static func withScalars<Result>(_ string: String, _ body: (UnsafeBufferPointer<UInt32>) -> Result) -> Result
    {
        let utf8Count = string.utf8.count
        if utf8Count <= 256 {
            return withUnsafeTemporaryAllocation(of: UInt32.self, capacity: utf8Count) { buffer in
                var count = 0
                for scalar in string.unicodeScalars {
                    buffer[count] = scalar.value
                    count += 1
                }
                return body(UnsafeBufferPointer(rebasing: buffer[0..<count]))
            }
        }
        let scalars = string.unicodeScalars.map(\.value)
        return scalars.withUnsafeBufferPointer(body)
    }

    package var description: String { source }
}
