public import TallyCore

/// Identity, sessions and super properties: configured once where the app wires tally in;
/// feature modules keep importing only `Tracking`.
extension TallyDelivery {
    /// The library's name and version in every event's `context.library`.
    public static let libraryVersion = "0.1.0"

    /// A user signed in: later events carry `userID` (with the install's anonymous id), and an
    /// `identify` record with `traits` goes to the collector (stored in `tally.identities`).
    public func identify(userID: String, traits: [String: PropertyValue] = [:]) {
        identity.record(.identify, traits: traits) { install in
            install.userID = userID
            return (nil, nil)
        }
    }

    /// The user is now known as `userID`: an `alias` record whose previous id is the current user
    /// id (or the anonymous id); later events carry `userID`.
    public func alias(_ userID: String) {
        identity.record(.alias) { install in
            let previous = install.userID ?? install.anonymousID
            install.userID = userID
            return (nil, previous)
        }
    }

    /// The user belongs to `groupID` (a company, an account): a `group` record with the group's
    /// `traits`.
    public func group(groupID: String, traits: [String: PropertyValue] = [:]) {
        identity.record(.group, traits: traits) { install in
            install.groupID = groupID
            return (groupID, nil)
        }
    }

    /// Logout: a new anonymous id, no user and no group; the session ends and the next event
    /// starts a new one. Nothing is sent for the reset itself.
    public func reset() {
        identity.reset()
    }

    /// The install's anonymous id now (persisted in the outbox's `identity.json`).
    public var anonymousID: String { identity.current.anonymousID }
    /// The signed-in user, if any.
    public var userID: String? { identity.current.userID }
    /// The current session's id, once an event started one (sessions on).
    public var sessionID: String? { identity.current.sessionID }

    /// Properties merged into every event tracked from now on (an event's own property of the same
    /// name wins); the values at `track()` are the ones sent.
    public var superProperties: [String: PropertyValue] {
        get { identity.superProperties }
        set { identity.setSuperProperties(newValue) }
    }

    /// Writes `identity.json` now if anything changed (on the outbox's queue).
    func saveIdentity() async {
        let identity = self.identity
        await store.run { _ in identity.saveIfChanged(force: true) }
    }
}
