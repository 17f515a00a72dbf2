import TallyCore
import Testing

/// Properties kept in their object text must be the properties the parser reads into pairs:
/// equal, hashed alike, and written byte for byte alike.
@Suite("Properties kept in their text")
struct PropertyTextTests {
    static let objects: [String] = [
        #"{"order_id":"50314b8e9bcf000000000000","affiliation":"Google Store","total":27.50,"revenue":25.00,"shipping":3,"tax":2,"discount":2.5,"coupon":"hasbros","currency":"USD","products":[{"product_id":"507f1f77bcf86cd799439011","price":19,"quantity":1}]}"#,
        #"{ "b" : [ 1 , 2 ] ,\#t"a" : "x" , "c" : { "nested" : { "deep" : [ null , true , false ] } } }"#,
        #"{"n1":1e3,"n2":-0,"n3":2.0,"n4":12345678901234567890,"n5":0.00001,"n6":-12.5,"n7":1E-2,"n8":0,"n9":-7}"#,
        #"{"esc":"a\"b\\c\/d\u00e9\n\t","uni":"значение ü","empty":"","ctl":"\u0000\u001f","sur":"\ud83d\ude00"}"#,
        #"{"ключ":"v","z":null,"y":true,"x":false,"":"empty key","aa":1,"a":2,"ab":3}"#,
        #"{"app":{"version":"4.2.0","build":"4217"},"os":{"name":"iOS","version":"17.1"},"locale":"en-US"}"#,
    ]

    /// More members than the scan gathers on the stack, in reverse order.
    static let many = "{" + (0..<40).reversed().map { #""k\#($0)":[\#($0),"v\#($0)"]"# }.joined(separator: ",") + "}"

    static func read(_ text: String) -> (text: EventProperties?, pairs: EventProperties) {
        Array(text.utf8).withUnsafeBufferPointer { bytes in
            var parser = JSONParser(bytes: bytes)
            let kept = parser.parsePropertyText()
            if kept != nil { #expect(parser.offset == bytes.count, "\(text)") }
            var again = JSONParser(bytes: bytes)
            let pairs = (try? again.parsePropertyObject().properties) ?? EventProperties()
            return (kept, pairs)
        }
    }

    @Test("every object: equal to its pairs, the same hash, the same bytes written, the same lookups")
    func sameAsPairs() throws {
        for object in Self.objects + [Self.many] {
            let (kept, pairs) = Self.read(object)
            let text = try #require(kept, "\(object)")
            #expect(text.text != nil)
            #expect(text == pairs, "\(object)")
            #expect(text.hashValue == pairs.hashValue, "\(object)")
            var written: [UInt8] = []
            text.appendJSON(to: &written)
            var expected: [UInt8] = []
            EventProperties(sortedPairs: pairs.sortedPairs).appendJSON(to: &expected)
            #expect(String(decoding: written, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
            #expect(text.count == pairs.count)
            for (key, value) in pairs.sortedPairs {
                #expect(text.contains(key))
                #expect(text[key] == value)
            }
            #expect(!text.contains("absent"))
            #expect(text.sortedKeys == pairs.sortedKeys)
        }
    }

    @Test("objects it does not keep are left to the pair reader, the offset unchanged")
    func declined() {
        for object in [
            #"{}"#, #"{"a":1,"a":2}"#, #"{"\u0061":1}"#, #"{"a":1,}"#, #"{"a":[1,}"#, #"{"a":1"#, #"{"a" 1}"#,
        ] {
            Array(object.utf8).withUnsafeBufferPointer { bytes in
                var parser = JSONParser(bytes: bytes)
                #expect(parser.parsePropertyText() == nil, "\(object)")
                #expect(parser.offset == 0)
            }
        }
    }

    @Test("an edited copy becomes pairs; the kept text is unchanged")
    func edits() throws {
        let (kept, _) = Self.read(#"{"b":1,"a":"x"}"#)
        let original = try #require(kept)
        var edited = original
        edited["c"] = .bool(true)
        #expect(edited.text == nil)
        #expect(edited.sortedKeys == ["a", "b", "c"])
        #expect(original.sortedKeys == ["a", "b"])
        #expect(original.text != nil)
    }
}
