import Foundation
import HTTPTypes
import TallyCore

/// Where a request's write key is: HTTP Basic with the key as user name (Segment), `Authorization:
/// Bearer KEY`, or in the JSON body as `writeKey` (Segment), `api_key` or `token` (PostHog).
enum Credentials {
    /// The key in the `Authorization` header, if any (Basic: the user name; Bearer: the token).
    /// Read as bytes: splitting, lowercasing and Foundation's whitespace trimming took ~1 % of
    /// the collector's CPU time under load, once per request.
    static func headerKey(_ fields: HTTPFields) -> [UInt8]? {
        guard let value = fields[.authorization] else { return nil }
        let bytes = Array(value.utf8)
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let schemeStart = bytes.firstIndex(where: { !isSpace($0) }),
            let schemeEnd = bytes[schemeStart...].firstIndex(where: isSpace),
            let credentialStart = bytes[schemeEnd...].firstIndex(where: { !isSpace($0) }),
            let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return nil }
        let scheme = bytes[schemeStart..<schemeEnd]
        let credential = bytes[credentialStart...last]
        if equalsIgnoringCase(scheme, "bearer") { return Array(credential) }
        guard equalsIgnoringCase(scheme, "basic"),
            let decoded = Data(base64Encoded: String(decoding: credential, as: UTF8.self))
        else { return nil }
        let user = decoded.prefix { $0 != UInt8(ascii: ":") }
        return user.isEmpty ? nil : Array(user)
    }

    /// ASCII case-insensitive equality with a lowercase literal.
    private static func equalsIgnoringCase(_ bytes: ArraySlice<UInt8>, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        return lowercase.withUTF8Buffer { literal in
            zip(bytes, literal).allSatisfy { byte, expected in
                let folded = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
                return folded == expected
            }
        }
    }

    /// The key in a JSON body: the first `writeKey`, `api_key` or `token` string member of the
    /// top-level object (or of the first element of a top-level array).
    static func bodyKey(_ body: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var key: [UInt8]?
        JSONTopLevel.forEachMember(body, intoArray: true) { (name, parser) throws(JSONError) in
            guard isKeyName(name), parser.peek() == UInt8(ascii: "\"") else { return false }
            let value = try parser.withStringBytes { (bytes) throws(JSONError) in Array(bytes) }
            if !value.isEmpty { key = value }
            return key != nil
        }
        return key
    }

    private static func isKeyName(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.elementsEqual("writeKey".utf8) || bytes.elementsEqual("api_key".utf8) || bytes.elementsEqual("token".utf8)
    }
}
