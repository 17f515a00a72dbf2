import Foundation

enum TestSecrets {
    /// The password of a `postgresql://user:password@host/db` URL.
    static func password(in url: String) -> String {
        URLComponents(string: url)?.password ?? "\u{0}no password\u{0}"
    }
}
