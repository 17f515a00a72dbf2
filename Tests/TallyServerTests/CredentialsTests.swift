import Foundation
import HTTPTypes
import Testing

@testable import TallyServer

/// The `Authorization` header as SDKs send it: scheme in any case, extra spaces, Basic with the
/// key as user name (Segment) and an empty password.
@Suite("Credentials in the Authorization header")
struct CredentialsTests {
    private func key(_ value: String) -> String? {
        Credentials.headerKey([.authorization: value]).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test("Bearer and Basic, any case, surrounding spaces and tabs ignored")
    func accepted() {
        let basic = Data("writekey:".utf8).base64EncodedString()
        #expect(key("Bearer abc") == "abc")
        #expect(key("bearer abc") == "abc")
        #expect(key("  BEARER \t abc \t") == "abc")
        #expect(key("Basic \(basic)") == "writekey")
        #expect(key("basic  \(basic) ") == "writekey")
        #expect(key("Basic \(Data("only-user".utf8).base64EncodedString())") == "only-user")
    }

    @Test("no credential, an unknown scheme, bad base64 or an empty user: no key")
    func refused() {
        #expect(key("Bearer") == nil)
        #expect(key("Bearer   ") == nil)
        #expect(key("") == nil)
        #expect(key("Token abc") == nil)
        #expect(key("Bearerx abc") == nil)
        #expect(key("Basic %%%") == nil)
        #expect(key("Basic \(Data(":secret".utf8).base64EncodedString())") == nil)
        #expect(Credentials.headerKey([:]) == nil)
    }
}
