import TallyCore
import Testing

@Suite("SHA-256 and HMAC-SHA-256")
struct SHA256Tests {
    /// FIPS 180-4 examples (NIST CSRC "SHA256.pdf", "SHA2_Additional") and the long message of FIPS 180-2.
    @Test(
        "NIST test vectors",
        arguments: [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
            (
                "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
                "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
            ),
        ]
    )
    func vectors(message: String, digest: String) {
        #expect(SHA256.hex(SHA256.digest(Array(message.utf8))) == digest)
    }

    @Test("one million 'a' (FIPS 180-2), fed in uneven pieces")
    func millionA() {
        var hash = SHA256()
        var remaining = 1_000_000
        var piece = 1
        while remaining > 0 {
            let count = min(piece, remaining)
            hash.update(repeatElement(UInt8(ascii: "a"), count: count))
            remaining -= count
            piece = piece % 997 + 13
        }
        #expect(SHA256.hex(hash.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("message lengths around the padding boundary agree between one call and byte by byte")
    func padding() {
        for length in [55, 56, 57, 63, 64, 65, 119, 120] {
            let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            var bytewise = SHA256()
            for byte in message { bytewise.update(CollectionOfOne(byte)) }
            #expect(bytewise.finalize() == SHA256.digest(message))
        }
    }

    /// RFC 4231 test cases 1, 2 and 6 (a key longer than a block is hashed first).
    @Test(
        "HMAC-SHA-256, RFC 4231",
        arguments: [
            (
                [UInt8](repeating: 0x0b, count: 20), "Hi There",
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
            ),
            (
                Array("Jefe".utf8), "what do ya want for nothing?",
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
            ),
            (
                [UInt8](repeating: 0xaa, count: 131), "Test Using Larger Than Block-Size Key - Hash Key First",
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
            ),
        ]
    )
    func hmac(key: [UInt8], message: String, mac: String) {
        #expect(SHA256.hex(SHA256.hmac(key: key, message: Array(message.utf8))) == mac)
    }
}
