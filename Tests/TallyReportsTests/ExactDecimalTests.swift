import TallyReports
import Testing

@Suite("Exact decimals")
struct ExactDecimalTests {
    static func decimal(_ text: String) -> ExactDecimal { ExactDecimal(jsonText: text)! }

    @Test("JSON numbers read exactly and print in plain notation without trailing zeros")
    func parsing() {
        let cases = [
            ("25.00", "25"), ("2.5e1", "25"), ("1e2", "100"), ("-0.0010", "-0.001"), ("0", "0"), ("-0", "0"),
            ("1.5E-3", "0.0015"), ("123456789012345678901234567890", "123456789012345678901234567890"),
        ]
        for (text, expected) in cases { #expect(Self.decimal(text).description == expected, "\(text)") }
        for bad in ["", "-", ".5", "1.", "1e", "abc", "1e1000001", "--1"] {
            #expect(ExactDecimal(jsonText: bad) == nil, "\(bad)")
        }
    }

    @Test("sums and comparisons are exact where doubles are not")
    func arithmetic() {
        #expect((Self.decimal("0.1") + Self.decimal("0.2")).description == "0.3")
        #expect((Self.decimal("1") + Self.decimal("-1.5")).description == "-0.5")
        #expect((Self.decimal("-2") + Self.decimal("2")).description == "0")
        #expect(Self.decimal("9.99") < Self.decimal("10"))
        #expect(Self.decimal("-10") < Self.decimal("-9.99"))
        #expect(Self.decimal("1.0") == Self.decimal("1"))
    }

    @Test("division rounds half to even at the given places")
    func division() {
        #expect(Self.decimal("1").divided(by: 3, places: 6).description == "0.333333")
        #expect(Self.decimal("2").divided(by: 3, places: 6).description == "0.666667")
        #expect(Self.decimal("0.0000005").divided(by: 1, places: 6).description == "0")  // half, to even
        #expect(Self.decimal("0.0000015").divided(by: 1, places: 6).description == "0.000002")
        #expect(Self.decimal("0.00000150001").divided(by: 1, places: 6).description == "0.000002")
        #expect(Self.decimal("5").divided(by: 2, places: 0).description == "2")
        #expect(Self.decimal("7").divided(by: 2, places: 0).description == "4")
        #expect(Self.decimal("-7").divided(by: 2, places: 0).description == "-4")
        #expect(Self.decimal("1").divided(by: 8, places: 2).description == "0.12")
        #expect(Self.decimal("3").divided(by: 8, places: 2).description == "0.38")
        #expect(Self.decimal("1e3").divided(by: 7, places: 4).description == "142.8571")
    }
}
