package import TallySchema

/// The keys a collector accepts, each resolved to what its requests need: the source, the
/// default feature and the validator of its tracking plan.
package struct WriteKeyTable: Sendable {
    /// Who sent a request.
    package struct Sender: Sendable {
        /// The source name (`anonymous` without a key).
        package var source: String
        /// The feature of events that name none and no plan claims.
        package var feature: String?
        /// The key's tracking plan, else the server's.
        package var validator: EventValidator
        /// The key's id when it has been rotated (still accepted, to be revoked once unused), so
        /// that its use can be counted.
        package var rotatedKeyID: String?
    }

    private let byHash: [String: Sender]
    /// Who sends requests without a key, when anonymous requests are allowed.
    package let anonymous: Sender?

    /// A table of the accepted write keys of `entries` (revoked and reader keys are left out); `validators` maps an entry's
    /// registry directory to its validator, `fallback` validates the rest.
    package init(
        entries: [WriteKeysFile.Entry],
        validators: [String: EventValidator],
        fallback: EventValidator,
        allowAnonymous: Bool
    ) {
        var byHash: [String: Sender] = [:]
        for entry in entries where entry.isAccepted && entry.role == .write {
            byHash[entry.sha256.lowercased()] = Sender(
                source: entry.source,
                feature: entry.feature,
                validator: entry.registry.flatMap { validators[$0] } ?? fallback,
                rotatedKeyID: entry.status == .rotated ? entry.id : nil
            )
        }
        self.byHash = byHash
        anonymous = allowAnonymous ? Sender(source: "anonymous", feature: nil, validator: fallback) : nil
    }

    /// The sender of `key`, or nil when the key is unknown.
    ///
    /// With anonymous requests allowed and no keys at all (no keys file, or an empty one), a key
    /// cannot be checked against anything: it counts as no key. Segment's and PostHog's SDKs
    /// always send one, and a development collector should take them as they are. With keys, an
    /// unknown key is still refused: it is most likely a typo, or a key that was revoked.
    package func sender(key: some Collection<UInt8>) -> Sender? {
        if byHash.isEmpty { return anonymous }
        return byHash[WriteKeysFile.hash(bytes: key)]
    }

    /// How many keys are accepted.
    package var count: Int { byHash.count }

    /// How many of them are rotated (accepted until they are revoked).
    package var rotatedCount: Int { byHash.values.count { $0.rotatedKeyID != nil } }
}
