import TallySchema
import Testing

@Suite("Pattern")
struct PatternTests {
    @Test(
        "matches like ECMA-262 (unanchored search)",
        arguments: [
            ("^ep-[0-9]+$", "ep-42", true), ("^ep-[0-9]+$", "ep-", false), ("^ep-[0-9]+$", "xep-1", false),
            ("a+", "xxaxx", true), ("^a*$", "aaa", true), ("^a*$", "aab", false), ("^$", "", true),
            ("^[a-z_]+$", "episode_list", true), ("^[a-z_]+$", "Episode", false), ("[^abc]", "abc", false),
            ("^(foo|bar)baz$", "barbaz", true), ("^(foo|bar)baz$", "foobar", false), ("^a{2,3}$", "aaaa", false),
            ("^a{2,3}$", "aa", true), ("^a{2}$", "a", false), ("^a{2,}$", "aaaaa", true), ("\\bcat\\b", "a cat!", true),
            ("\\bcat\\b", "concat", false), ("^\\d{3}-\\w+\\s?$", "123-abc ", true), ("^.$", "😀", true),
            ("^[\\u00e0-\\u00ff]+$", "éè", true), ("^x?y??z*?$", "yz", true), ("a{,5}", "a{,5}", true),
            ("^(?:ab)+$", "ababab", true), ("^(?<year>\\d{4})$", "2026", true), ("^\\.\\*$", ".*", true),
            ("^[\\d-]+$", "12-3", true), ("^(a|ab)(c|bcd)(d*)$", "abcd", true),
            ("^(?!x).*$", "yes", true), ("^(?!x).*$", "xno", false), ("^(a)\\1$", "aa", true),
            // Sequences without branches (matched scalar by scalar).
            ("^[A-Z]{3}$", "USD", true), ("^[A-Z]{3}$", "usd", false), ("^[A-Z]{3}$", "USDX", false),
            ("^[A-Z]{3}$", "US", false), ("[0-9]{2}", "ab12c", true), ("[0-9]{2}", "a1b2", false),
            ("a$", "ba", true), ("a$", "ab", false), ("^$", "a", false), ("^", "", true), ("$", "abc", true),
            ("", "x", true), ("é.", "café!", true), ("^[é]{2}$", "éé", true), ("x^", "x", false),
        ]
    )
    func matches(pattern: String, input: String, expected: Bool) throws {
        #expect(try Pattern(pattern).matches(input) == expected)
    }

    @Test("lookaround and back-references fall back to Swift Regex; the rest is native")
    func engines() throws {
        #expect(try Pattern("^[a-z]+(_[a-z]+)*$").isNative)
        #expect(try !Pattern("^(?!x)").isNative)
        #expect(try !Pattern("(a)\\1").isNative)
    }

    @Test("invalid patterns are refused", arguments: ["(", "[a", "a)", "*a", "[z-a]", "a{3,1}", "\\"])
    func invalid(pattern: String) {
        #expect(throws: PatternError.self) { try Pattern(pattern) }
    }

    @Test("hostile patterns stay linear: no catastrophic backtracking")
    func linear() throws {
        let pattern = try Pattern("^(a+)+$")
        #expect(!pattern.matches(String(repeating: "a", count: 5_000) + "!"))
    }
}
