import Foundation

extension WriteKeysFile {
    /// One key: its hash, who sends with it, and where it is in its life (active, rotated, revoked).
    public struct Entry: Sendable, Hashable, Codable {
        /// Whether a key is accepted.
        public enum Status: String, Sendable, Hashable, Codable, CaseIterable {
            /// Accepted.
            case active
            /// Replaced by a newer key (`tally keys rotate`) and still accepted until it is revoked,
            /// so that apps can move to the new key before the old one stops working.
            case rotated
            /// No longer accepted; kept in the file as a record.
            case revoked
        }

        /// What a key opens: sending events to the collector, or reading the dashboard. A write
        /// key never opens the dashboard and a reader key never sends.
        public enum Role: String, Sendable, Hashable, Codable, CaseIterable {
            case write
            case reader
        }

        /// The key's SHA-256, lowercase hex.
        public var sha256: String
        /// The source its events come from (`ios-app`).
        public var source: String
        /// The feature of events that name none and no plan claims.
        public var feature: String?
        /// A registry directory whose plans this key's events are validated against (else the
        /// server's `--registry`).
        public var registry: String?
        /// Active when the file does not say (files written before keys could be rotated or revoked).
        public var status: Status
        /// Write when the file does not say (files written before reader keys).
        public var role: Role
        /// When the key was made (RFC 3339), when known.
        public var createdAt: String?
        /// When it was rotated.
        public var rotatedAt: String?
        /// When it was revoked.
        public var revokedAt: String?
        /// The id of the key that replaced it, for a rotated key.
        public var replacedBy: String?

        /// An entry.
        public init(
            sha256: String,
            source: String,
            feature: String? = nil,
            registry: String? = nil,
            status: Status = .active,
            createdAt: String? = nil,
            role: Role = .write
        ) {
            self.sha256 = sha256
            self.source = source
            self.feature = feature
            self.registry = registry
            self.status = status
            self.createdAt = createdAt
            self.role = role
        }

        /// How `tally keys list` names the key and `revoke` / `rotate` find it: the first 12 hex
        /// digits of its hash. Derived, so every entry has one, those of older files too; it tells
        /// nothing about the key itself.
        public var id: String { String(sha256.prefix(WriteKeysFile.idLength)) }

        /// Whether requests with this key are accepted.
        public var isAccepted: Bool { status != .revoked }

        private enum CodingKeys: String, CodingKey {
            case sha256, source, feature, registry, status, role
            case createdAt = "created_at"
            case rotatedAt = "rotated_at"
            case revokedAt = "revoked_at"
            case replacedBy = "replaced_by"
        }

        /// Refuses a `sha256` that is not 64 hex digits (a hand-edited file; such a key could never
        /// match) and a `status` other than active, rotated or revoked; reads upper-case hex as
        /// lower-case.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let sha256 = try container.decode(String.self, forKey: .sha256).lowercased()
            guard sha256.utf8.count == 64, WriteKeysFile.isHex(sha256) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .sha256,
                    in: container,
                    debugDescription: "not a SHA-256 (64 hex digits); `tally keys add` writes one"
                )
            }
            self.sha256 = sha256
            self.source = try container.decode(String.self, forKey: .source)
            self.feature = try container.decodeIfPresent(String.self, forKey: .feature)
            self.registry = try container.decodeIfPresent(String.self, forKey: .registry)
            let status = try container.decodeIfPresent(String.self, forKey: .status) ?? Status.active.rawValue
            guard let known = Status(rawValue: status) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .status,
                    in: container,
                    debugDescription: "unknown status \"\(status)\" (active, rotated or revoked)"
                )
            }
            self.status = known
            let role = try container.decodeIfPresent(String.self, forKey: .role) ?? Role.write.rawValue
            guard let knownRole = Role(rawValue: role) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .role,
                    in: container,
                    debugDescription: "unknown role \"\(role)\" (write or reader)"
                )
            }
            self.role = knownRole
            self.createdAt = try container.decodeIfPresent(String.self, forKey: .createdAt)
            self.rotatedAt = try container.decodeIfPresent(String.self, forKey: .rotatedAt)
            self.revokedAt = try container.decodeIfPresent(String.self, forKey: .revokedAt)
            self.replacedBy = try container.decodeIfPresent(String.self, forKey: .replacedBy)
        }
    }
}
