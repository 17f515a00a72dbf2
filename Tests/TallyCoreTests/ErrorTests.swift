import TallyCore
import Testing

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

@Suite("Errors: stable codes, no values in descriptions")
struct ErrorTests {
    /// A value no description may print: it stands for a property value, an id or a password.
    static let secret = "s3cr3t"

    @Test("JSONError codes print as their stable snake_case names")
    func jsonCodes() {
        let codes: [(JSONError.Code, String)] = [
            (.unexpectedEnd, "unexpected_end"), (.unexpectedCharacter, "unexpected_character"),
            (.invalidNumber, "invalid_number"), (.invalidEscape, "invalid_escape"),
            (.invalidUnicodeEscape, "invalid_unicode_escape"),
            (.controlCharacterInString, "control_character_in_string"), (.invalidUTF8, "invalid_utf8"),
            (.tooDeep, "too_deep"), (.trailingContent, "trailing_content"),
        ]
        for (code, name) in codes { #expect(code.description == name) }
        #expect(Set(codes.map(\.0)).count == codes.count, "distinct")
    }

    @Test("EnvelopeDecodingError codes print as the reason codes rejects files record")
    func envelopeCodes() {
        let codes: [(EnvelopeDecodingError.Code, String)] = [
            (.malformedJSON, "malformed_json"), (.notAnObject, "not_an_object"), (.missingField, "missing_field"),
            (.wrongType, "type_mismatch"), (.invalidTimestamp, "invalid_timestamp"),
            (.invalidEventID, "invalid_event_id"), (.duplicateField, "duplicate_field"),
        ]
        for (code, name) in codes { #expect(code.description == name) }
        #expect(Set(codes.map(\.0)).count == codes.count, "distinct")
    }

    @Test("IOError codes are the system calls' names, and the description is unchanged")
    func ioCodes() {
        let codes: [(IOError.Code, String)] = [
            (.access, "access"), (.fsync, "fsync"), (.mkdir, "mkdir"), (.open, "open"), (.opendir, "opendir"),
            (.poll, "poll"), (.read, "read"), (.stat, "stat"), (.write, "write"), (.flock, "flock"),
            (.rename, "rename"), (.unlink, "unlink"),
        ]
        for (code, name) in codes { #expect(code.description == name) }
        let error = IOError(.open, path: "/data/2026-11-22.ndjson", errno: EACCES)
        #expect(error.description == "open /data/2026-11-22.ndjson: \(String(cString: strerror(EACCES)))")
    }

    @Test(
        "an envelope that fails never has its values in the error",
        arguments: [
            // Each line holds the secret as a value and fails for a different reason.
            #"{"name":"a","occurred_at":"s3cr3t"}"#,
            #"{"name":"a","occurred_at":"2026-11-22T10:15:00Z","sent_at":"s3cr3t"}"#,
            #"{"name":"a","occurred_at":"2026-11-22T10:15:00Z","properties":"s3cr3t"}"#,
            #"{"name":"a","occurred_at":"2026-11-22T10:15:00Z","properties":{"p":"s3cr3t","p":"s3cr3t"}}"#,
            #"{"name":"a","occurred_at":"2026-11-22T10:15:00Z","name":"s3cr3t"}"#,
            #"{"name":"a","occurred_at":"2026-11-22T10:15:00Z","type":"s3cr3t"}"#,
            #"{"name":"a","occurred_at":"2026-11-22T10:15:00Z","context":"s3cr3t"}"#,
            #"{"name":"a","occurred_at":"2026-11-22T10:15:00Z","violations":["s3cr3t",1]}"#,
            #"{"properties":{"password":"s3cr3t"}}"#,
            #"{"name":"a","properties":{"password":"s3cr3t"#,
            #"{"name":"a","properties":{"password":"s3cr3t\x"}}"#,
            #"{"name":"a","properties":{"password":"s3cr3t"}} s3cr3t"#,
            #"{"name":"a","properties":{"password":s3cr3t}}"#,
            #"["s3cr3t"]"#,
            #""s3cr3t""#,
            "{\"name\":\"a\",\"properties\":{\"password\":\"s3cr3t\u{1}\"}}",
        ]
    )
    func envelopeErrorsHideValues(line: String) {
        #expect(throws: EnvelopeDecodingError.self) { try EventEnvelope(ndjsonLine: Array(line.utf8)) }
        do {
            _ = try EventEnvelope(ndjsonLine: Array(line.utf8))
        } catch {
            #expect(!error.description.contains(Self.secret), "\(error)")
            #expect(!error.message.contains(Self.secret) && !error.path.contains(Self.secret), "\(error)")
        }
    }

    @Test("a JSON error names the byte offset, not the bytes")
    func jsonErrorsHideInput() {
        for text in [#"{"password":"s3cr3t"#, #"{"password":s3cr3t}"#, #"["s3cr3t"] s3cr3t"#, "\"s3cr3t\u{1}\""] {
            do {
                _ = try JSONParser.parse(Array(text.utf8))
                Issue.record("\(text) parsed")
            } catch {
                #expect(!error.description.contains(Self.secret), "\(error)")
            }
        }
    }

    @Test("a JSON error's offset as line and column, both from 1, for files a person edits")
    func textPosition() {
        let text = Array("{\n  \"a\": 1,\n  x\n}".utf8)
        text.withUnsafeBufferPointer { bytes in
            #expect(JSONTextPosition(of: 0, in: bytes).description == "line 1, column 1")
            let x = JSONTextPosition(of: 14, in: bytes)
            #expect(x.line == 3 && x.column == 3)
            #expect(JSONTextPosition(of: 16, in: bytes).description == "line 4, column 1")
        }
    }
}
