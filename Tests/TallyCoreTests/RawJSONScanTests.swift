import TallyCore
import TallyTestSupport
import Testing

/// The tree-free paths added for nested properties must agree with the parser they stand in for.
@Suite("Raw JSON scanning and number reading")
struct RawJSONScanTests {
    /// The shape the scanner should record, computed from the parsed tree.
    static func shape(of value: JSONValue, level: Int32 = 0, into shape: inout (Int32, Int32, Int32, Int32)) {
        shape.1 += 1
        switch value {
        case .string(let string): shape.2 = max(shape.2, Int32(string.utf8.count))
        case .array(let elements):
            shape.0 = max(shape.0, level + 1)
            for element in elements { Self.shape(of: element, level: level + 1, into: &shape) }
        case .object(let members):
            shape.0 = max(shape.0, level + 1)
            for member in members {
                shape.3 = max(shape.3, Int32(member.key.utf8.count))
                Self.shape(of: member.value, level: level + 1, into: &shape)
            }
        default: break
        }
    }

    @Test("JSONTestSuite: the scanner accepts and refuses exactly what the parser does, with the same error")
    func scannerMatchesParser() throws {
        let cases = try JSONParserConformanceTests.cases()
        try #require(!cases.isEmpty)
        for (name, bytes) in cases {
            let parsed = Result { () throws(JSONError) in try JSONParser.parse(bytes) }
            let scanned = bytes.withUnsafeBufferPointer { buffer in
                Result { () throws(JSONError) -> RawJSON in
                    var parser = JSONParser(bytes: buffer)
                    parser.skipWhitespace()
                    let raw = try parser.parseRawValue(depth: 0)
                    parser.skipWhitespace()
                    guard parser.peek() == nil else { throw JSONError(.trailingContent, at: parser.offset) }
                    return raw
                }
            }
            switch (parsed, scanned) {
            case (.success(let value), .success(let raw)):
                #expect(raw.value == value, "\(name)")
                var expected: (Int32, Int32, Int32, Int32) = (0, 0, 0, 0)
                Self.shape(of: value, into: &expected)
                #expect(raw.shape.depth == expected.0 && raw.shape.values == expected.1, "\(name)")
                #expect(raw.shape.longestString == expected.2 && raw.shape.longestKey == expected.3, "\(name)")
                #expect(raw.typeName == value.typeName, "\(name)")
            case (.failure(let parseError), .failure(let scanError)):
                #expect(parseError == scanError, "\(name)")
            default:
                Issue.record("\(name): parser \(parsed), scanner \(scanned)")
            }
        }
    }

    @Test("strings with a special byte at every position of the eight-byte scan")
    func plainRuns() throws {
        for position in 0..<20 {
            for (special, decoded) in [(#"\n"#, "\n"), ("é", "é"), (#"\""#, "\"")] {
                let text =
                    String(repeating: "a", count: position) + special + String(repeating: "b", count: 19 - position)
                let expected =
                    String(repeating: "a", count: position) + decoded + String(repeating: "b", count: 19 - position)
                #expect(try JSONParser.parse("\"\(text)\"") == .string(expected))
                let raw = try #require(PropertyValue(JSONParser.parse("[\"\(text)\"]")).rawJSON)
                #expect(raw.shape.longestString == Int32(expected.utf8.count))
            }
            let control = "\"" + String(repeating: "a", count: position) + "\u{01}\""
            #expect(throws: JSONError.self) { try JSONParser.parse(control) }
        }
    }

    @Test("numbers read from bytes give what reading their text gives")
    func numbers() {
        var random = SeededRandom(7)
        var texts = [
            "0", "-0", "7", "-7", "42", "999999999999999999", "-999999999999999999", "9223372036854775807",
            "-9223372036854775808", "9223372036854775808", "0.5", "-12.5", "0.001", "0.0001", "0.00001", "25.00",
            "27.50", "1e3", "1E-2", "123456789012345.6", "1234567890123456.7", "0.1", "0.2", "0.3", "3.14159",
            "100.0", "-0.0", "1.7976931348623157e308", "1.250", "-0.10", "0.00", "100.00", "1.50e2",
        ]
        for _ in 0..<2_000 {
            let integer = random.next() % 1_000_000
            let fraction = random.next() % 100_000
            texts.append("\(random.next() % 2 == 0 ? "-" : "")\(integer).\(fraction)")
            texts.append(String(random.next() % 10_000_000_000_000))
        }
        for text in texts {
            let fromBytes = Array(text.utf8).withUnsafeBufferPointer { PropertyValue(numberBytes: $0) }
            #expect(fromBytes == PropertyValue(numberText: text), "\(text)")
            let double = Array(text.utf8).withUnsafeBufferPointer { DecimalText.double($0) }
            if let double { #expect(double == Double(text), "\(text)") }
        }
    }

    @Test("UUIDv5 across SHA-1 block boundaries matches Python's uuid5")
    func foreignIDsAcrossBlocks() {
        let expected: [(String, String)] = [
            (String(repeating: "x", count: 39), "725f94a4-1ffd-5c9c-9fcd-f5b116897018"),
            (String(repeating: "x", count: 40), "d58d5ad6-b2de-50d3-a079-6b036cf46439"),
            (String(repeating: "y", count: 47), "d6cbe0b1-952d-57e0-804d-529065ad3644"),
            (String(repeating: "y", count: 48), "499ff25b-9e41-5509-aeae-dabd0d664d24"),
            (String(repeating: "z", count: 55), "8cba515c-5f0e-5b79-bc26-6c5d6a4f0e97"),
            (String(repeating: "z", count: 56), "932dfcc7-9f98-52e3-868e-085b3c9865cc"),
            (String(repeating: "w", count: 200), "2d1a2e30-35e5-5336-b43a-4fb9144e14e5"),
            ("ajs-next-1700000000000-8b3c1e2f-5d4a", "c7bccf66-a839-5e7b-98d1-7296c4e3c12f"),
        ]
        for (name, uuid) in expected {
            #expect(EventID(foreignID: name).description == uuid, "\(name.count) bytes")
        }
    }

    @Test("a member of raw JSON is read without parsing the rest; the last of a repeated key wins")
    func members() throws {
        let raw = try #require(
            PropertyValue(JSONParser.parse(#"{"a": {"x": [1, 2]}, "version": "4.2", "b": 3, "version": 5}"#)).rawJSON
        )
        #expect(raw.member("version") == .number(JSONNumber(text: "5")))
        #expect(
            raw.member("a")
                == .object([
                    JSONMember(
                        key: "x",
                        value: .array([.number(JSONNumber(text: "1")), .number(JSONNumber(text: "2"))])
                    )
                ])
        )
        #expect(raw.member("missing") == nil)
        let array = try #require(PropertyValue(JSONParser.parse("[1]")).rawJSON)
        #expect(array.member("version") == nil)
    }

    @Test("a member's text: strings decoded, numbers as spelled, anything else nil; the last of a repeated key wins")
    func memberTexts() throws {
        let raw = try #require(
            PropertyValue(
                JSONParser.parse(
                    #"{"name": "i\u004fS", "version": "4.2", "build": 4217, "a": {"version": "x"}, "version": "17.1", "n": null}"#
                )
            ).rawJSON
        )
        #expect(raw.memberText("name") == "iOS")
        #expect(raw.memberText("version") == "17.1")
        #expect(raw.memberText("build") == "4217")
        #expect(raw.memberText("a") == nil)
        #expect(raw.memberText("n") == nil)
        #expect(raw.memberText("missing") == nil)
        let repeated = try #require(PropertyValue(JSONParser.parse(#"{"v": "1", "v": [2]}"#)).rawJSON)
        #expect(repeated.memberText("v") == nil)
        let array = try #require(PropertyValue(JSONParser.parse(#"["version"]"#)).rawJSON)
        #expect(array.memberText("version") == nil)
    }
}

extension PropertyValue {
    fileprivate var rawJSON: RawJSON? {
        if case .json(let raw) = self { raw } else { nil }
    }
}
