import Foundation
import HTTPTypes
import TallyCore

/// Where a request's write key is: HTTP Basic with the key as user name (Segment), `Authorization:
/// Bearer KEY`, or in the JSON body as `writeKey` (Segment), `api_key` or `token` (PostHog).
enum Credentials {
    /// The key in the `Authorization` header, if any (Basic: the user name; Bearer: the token).
    static func headerKey(_ fields: HTTPFields) -> [UInt8]? {
        guard let value = fields[.authorization] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2 else { return nil }
        let scheme = parts[0].lowercased()
        let credential = parts[1].trimmingCharacters(in: .whitespaces)
        switch scheme {
        case "bearer":
            return credential.isEmpty ? nil : Array(credential.utf8)
        case "basic":
            guard let decoded = Data(base64Encoded: credential) else { return nil }
            let user = decoded.prefix { $0 != UInt8(ascii: ":") }
            return user.isEmpty ? nil : Array(user)
        default:
            return nil
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
