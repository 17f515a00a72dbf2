import Foundation
package import HTTPTypes
import TallyCore
package import TallyServer

/// The reader keys that open the dashboard (`tally keys add --reader`), as hashes: sent as
/// `Authorization: Bearer KEY`, or HTTP Basic with the key as the password (or, with none, the user
/// name). Write keys never open it.
package struct ReaderKeys: Sendable {
    private let hashes: Set<String>

    /// The accepted reader keys of `file` (active or rotated, not revoked).
    package init(_ file: WriteKeysFile) {
        hashes = Set(file.keys.filter { $0.role == .reader && $0.isAccepted }.map(\.sha256))
    }

    package init(hashes: Set<String>) {
        self.hashes = hashes
    }

    /// No keys: the dashboard is open (which it only is on loopback).
    package var isEmpty: Bool { hashes.isEmpty }

    package var count: Int { hashes.count }

    /// Whether the request's `Authorization` names an accepted reader key.
    package func admits(_ fields: HTTPFields) -> Bool {
        guard let key = Self.key(fields) else { return false }
        return hashes.contains(WriteKeysFile.hash(key))
    }

    static func key(_ fields: HTTPFields) -> String? {
        guard let value = fields[.authorization] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2 else { return nil }
        let scheme = parts[0].lowercased()
        let credential = parts[1].trimmingCharacters(in: .whitespaces)
        if scheme == "bearer" { return credential.isEmpty ? nil : credential }
        guard scheme == "basic", let data = Data(base64Encoded: credential),
            let text = String(data: data, encoding: .utf8)
        else { return nil }
        let sides = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let password = sides.count == 2 ? String(sides[1]) : ""
        let user = String(sides[0])
        let key = password.isEmpty ? user : password
        return key.isEmpty ? nil : key
    }
}
