import Foundation
import TallyCore
import TallyTestSupport
import Testing

/// JSONTestSuite (Nicolas Seriot): `y_` must parse, `n_` must be rejected, `i_` get the
/// behaviour documented on ``JSONParser``.
@Suite("JSONParser against JSONTestSuite")
struct JSONParserConformanceTests {
    /// The `i_` files whose documented outcome is "accepted"; every other `i_` file is rejected.
    static let acceptedImplementationDefined: Set<String> = [
        "i_number_double_huge_neg_exp.json", "i_number_huge_exp.json", "i_number_neg_int_huge_exp.json",
        "i_number_pos_double_huge_exp.json", "i_number_real_neg_overflow.json", "i_number_real_pos_overflow.json",
        "i_number_real_underflow.json", "i_number_too_big_neg_int.json", "i_number_too_big_pos_int.json",
        "i_number_very_big_negative_int.json",
    ]

    static func cases() throws -> [(name: String, bytes: [UInt8])] {
        let directory = try ConformanceData.require("jsontestsuite/test_parsing")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().compactMap { name in
            guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) else {
                return nil
            }
            return (name, Array(data))
        }
    }

    @Test("every y_ file is accepted, every n_ file rejected, every i_ file as documented")
    func conformance() throws {
        let cases = try Self.cases()
        try #require(!cases.isEmpty)
        var counts: [String: Int] = [:]
        for (name, bytes) in cases {
            let accepted = (try? JSONParser.parse(bytes)) != nil
            switch name.first {
            case "y": #expect(accepted, "\(name) must be accepted")
            case "n": #expect(!accepted, "\(name) must be rejected")
            default:
                #expect(accepted == Self.acceptedImplementationDefined.contains(name), "\(name): documented behaviour")
            }
            counts[String(name.prefix(1)), default: 0] += 1
        }
        print(
            "JSONTestSuite: \(counts["y", default: 0]) y_, \(counts["n", default: 0]) n_, \(counts["i", default: 0]) i_ checked"
        )
    }

    @Test("nesting beyond the limit is an error, not a crash")
    func deepNesting() {
        let deep = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        #expect(throws: JSONError.self) { try JSONParser.parse(deep) }
        let fine = Array(String(repeating: "[", count: 100) + String(repeating: "]", count: 100)).map { $0.asciiValue! }
        #expect((try? JSONParser.parse(fine)) != nil)
    }

    @Test("strings: escapes, surrogate pairs and UTF-8 decode to the right text")
    func strings() throws {
        #expect(try JSONParser.parse(#""a\"b\\c\/d\b\f\n\r\t""#) == .string("a\"b\\c/d\u{8}\u{c}\n\r\t"))
        #expect(try JSONParser.parse(#""\u00e9\ud83d\ude00""#) == .string("é😀"))
        #expect(try JSONParser.parse("\"é😀\"") == .string("é😀"))
        #expect(throws: JSONError.self) { try JSONParser.parse([0x22, 0xC0, 0xAF, 0x22]) }  // overlong
        #expect(throws: JSONError.self) { try JSONParser.parse([0x22, 0xED, 0xA0, 0x80, 0x22]) }  // surrogate
    }
}
