package import TallyCore

extension WriteKeysFile {
    /// The shortest id prefix a key can be named by.
    package static let minimumIDPrefix = 6

    /// Makes a key for `source` and adds its entry; returns the key (to print once) and the entry.
    package mutating func add(
        source: String,
        feature: String? = nil,
        registry: String? = nil,
        role: Entry.Role = .write,
        at time: Timestamp = .now()
    ) -> (key: String, entry: Entry) {
        // Ids are 48 bits of the hash: a collision among one file's keys is all but impossible,
        // but an id must name one key, so a key whose id is taken is made again.
        var key: String
        var hash: String
        repeat {
            key = Self.makeKey()
            hash = Self.hash(key)
        } while keys.contains { $0.id == hash.prefix(Self.idLength) }
        let entry = Entry(
            sha256: hash,
            source: source,
            feature: feature,
            registry: registry,
            createdAt: time.rfc3339,
            role: role
        )
        keys.append(entry)
        return (key, entry)
    }

    /// The position of the key `reference` names: the key itself, its id as `tally keys list`
    /// shows it, or a prefix of that id (at least ``minimumIDPrefix`` hex digits) that only one
    /// key's id starts with.
    /// - Throws: ``WriteKeysError`` `unknown_key` or `ambiguous_id`.
    package func index(of reference: String) throws(WriteKeysError) -> Int {
        let hash = Self.hash(reference)
        if let index = keys.firstIndex(where: { $0.sha256 == hash }) { return index }
        let prefix = reference.lowercased()
        guard prefix.utf8.count >= Self.minimumIDPrefix, Self.isHex(prefix) else {
            throw WriteKeysError(
                .unknownKey,
                "no key is \(Self.describe(reference)): give a key's id as `tally keys list` shows it "
                    + "(\(Self.idLength) hex digits, or its first \(Self.minimumIDPrefix) or more), or the key itself"
            )
        }
        let matches = keys.indices.filter { keys[$0].sha256.hasPrefix(prefix) }
        switch matches.count {
        case 1:
            return matches[0]
        case 0:
            throw WriteKeysError(
                .unknownKey,
                "no key has the id \(prefix) (`tally keys list` shows the ids), and it is not a key of the file"
            )
        default:
            throw WriteKeysError(
                .ambiguousID,
                "\(matches.count) keys have ids starting with \(prefix) (\(matches.map { keys[$0].id }.joined(separator: ", "))): "
                    + "give more digits"
            )
        }
    }

    /// Revokes the key `reference` names (see ``index(of:)``); returns its entry as it was before,
    /// so that a caller can tell a key revoked now from one revoked already (left as it was).
    package mutating func revoke(_ reference: String, at time: Timestamp = .now()) throws(WriteKeysError) -> Entry {
        let index = try index(of: reference)
        let before = keys[index]
        if before.status != .revoked {
            keys[index].status = .revoked
            keys[index].revokedAt = time.rfc3339
        }
        return before
    }

    /// Rotates the key `reference` names: a new key with the same source, feature and registry,
    /// and the old one marked rotated (still accepted until it is revoked). Returns the new key (to
    /// print once), its entry and the old entry as it was.
    /// - Throws: ``WriteKeysError`` `unknown_key`, `ambiguous_id`, or `revoked_key` (a revoked key
    ///   has nothing left to hand over: `tally keys add` makes a new one).
    package mutating func rotate(
        _ reference: String,
        at time: Timestamp = .now()
    ) throws(WriteKeysError) -> (key: String, entry: Entry, old: Entry) {
        let index = try index(of: reference)
        let old = keys[index]
        guard old.status != .revoked else {
            throw WriteKeysError(
                .revokedKey,
                "the key \(old.id) (\(old.source)) is revoked: `tally keys add --source \(old.source)` makes a new one"
            )
        }
        let (key, entry) = add(
            source: old.source,
            feature: old.feature,
            registry: old.registry,
            role: old.role,
            at: time
        )
        keys[index].status = .rotated
        keys[index].rotatedAt = time.rfc3339
        keys[index].replacedBy = entry.id
        return (key, entry, old)
    }

    /// `reference` for a message: an id-like word as it is, anything else (possibly a key) only by
    /// its length, so that no key reaches a terminal or a log through an error.
    private static func describe(_ reference: String) -> String {
        reference.utf8.count <= idLength && reference.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
            ? "\"\(reference)\"" : "the \(reference.count)-character text given"
    }
}
