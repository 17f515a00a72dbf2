/// What an install remembers about itself, in the outbox's `identity.json`: its anonymous id,
/// the signed-in user, the group, the session, and the app version and build the last launch ran
/// (so that the next launch can tell an update).
package struct InstallState: Sendable, Hashable, Codable {
    /// Created once per install (and again by a reset).
    package var anonymousID: String
    package var userID: String?
    package var groupID: String?
    package var session: Session?
    /// The app's version and build as of the last launch; nil before the first.
    package var appVersion: String?
    package var appBuild: String?

    package init(
        anonymousID: String,
        userID: String? = nil,
        groupID: String? = nil,
        session: Session? = nil,
        appVersion: String? = nil,
        appBuild: String? = nil
    ) {
        self.anonymousID = anonymousID
        self.userID = userID
        self.groupID = groupID
        self.session = session
        self.appVersion = appVersion
        self.appBuild = appBuild
    }

    // identity.json's keys: snake_case, spelled out.
    private enum CodingKeys: String, CodingKey {
        case anonymousID = "anonymous_id"
        case userID = "user_id"
        case groupID = "group_id"
        case session
        case appVersion = "app_version"
        case appBuild = "app_build"
    }
}
