import Testing

@testable import TallyServer

@Suite("write keys")
struct WriteKeysFileTests {
    @Test("a new key is 43 letters and digits (one word on a command line, in a URL, as a Basic user), never twice")
    func keysAreAlphanumeric() {
        let keys = (0..<2_000).map { _ in WriteKeysFile.makeKey() }
        for key in keys {
            #expect(key.utf8.count == 43)
            #expect(
                key.utf8.allSatisfy {
                    (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0)
                        || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                }
            )
        }
        #expect(Set(keys).count == keys.count)
    }
}
