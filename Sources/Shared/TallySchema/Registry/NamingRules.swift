import Foundation

/// tally's naming rules for features, screens, events and properties.
package enum NamingRules {
    /// Lowercase snake_case: `[a-z][a-z0-9]*` parts joined by single underscores.
    package static func isSnakeCase(_ name: String) -> Bool {
        if let result = name.utf8.withContiguousStorageIfAvailable({ isSnakeCase(bytes: $0) }) { return result }
        return isSnakeCase(bytes: Array(name.utf8))
    }

    private static func isSnakeCase(bytes name: some Sequence<UInt8>) -> Bool {
        var previous = UInt8(ascii: "_")
        var isFirst = true
        for byte in name {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"): break
            case UInt8(ascii: "0")...UInt8(ascii: "9"): if isFirst { return false }
            case UInt8(ascii: "_"): if previous == UInt8(ascii: "_") { return false }
            default: return false
            }
            previous = byte
            isFirst = false
        }
        return !isFirst && previous != UInt8(ascii: "_")
    }

    /// The key two names collide on: lowercase letters and digits only
    /// (`Episode Viewed`, `episode_viewed` and `episodeViewed` all give `episodeviewed`).
    package static func collisionKey(_ name: String) -> String {
        String(
            String.UnicodeScalarView(
                name.lowercased().unicodeScalars.filter {
                    $0.properties.isAlphabetic || $0.properties.numericType != nil
                }
            )
        )
    }

    /// Lowercase snake_case of any name: `EpisodeListScreen` → `episode_list_screen`,
    /// `com.snowplowanalytics.mobile` → `com_snowplowanalytics_mobile`, `Order Completed` → `order_completed`.
    package static func snakeCase(_ text: String) -> String {
        var result = ""
        var previousWasLower = false
        for scalar in text.unicodeScalars {
            if CharacterSet.uppercaseLetters.contains(scalar) {
                if previousWasLower { result.append("_") }
                result.append(String(scalar).lowercased())
                previousWasLower = false
            } else if CharacterSet.alphanumerics.contains(scalar) && scalar.isASCII {
                result.unicodeScalars.append(scalar)
                previousWasLower = true
            } else {
                if !result.hasSuffix("_") && !result.isEmpty { result.append("_") }
                previousWasLower = false
            }
        }
        while result.hasSuffix("_") { result.removeLast() }
        return result
    }

    /// The screen an event name starts with, among `screens` (longest match), when followed by an action.
    package static func screen(of eventName: String, among screens: [String]) -> String? {
        screens.filter { eventName.hasPrefix($0 + "_") && eventName.count > $0.count + 1 }.max { $0.count < $1.count }
    }

    /// The longest event name tally accepts, in UTF-8 bytes.
    package static let maxSentNameLength = 255

    /// Why `name` cannot be an event name as sent, or nil when it can: 1 to 255 bytes of UTF-8
    /// (Swift strings always are) without control characters. Runs for every event: one pass over
    /// contiguous bytes, a message only on failure.
    package static func problemWithSentName(_ name: String) -> String? {
        let count = name.utf8.count
        if count == 0 { return "must not be empty" }
        if count > maxSentNameLength { return "longer than \(maxSentNameLength) bytes" }
        let clean =
            name.utf8.withContiguousStorageIfAvailable { hasNoControlCharacters($0) }
            ?? hasNoControlCharacters(Array(name.utf8))
        return clean ? nil : "must not contain control characters"
    }

    private static func hasNoControlCharacters(_ bytes: some Collection<UInt8>) -> Bool {
        var previous: UInt8 = 0
        for byte in bytes {
            // C0 controls and DEL; C1 controls are U+0080–U+009F, encoded C2 80–C2 9F.
            if byte < 0x20 || byte == 0x7F || (previous == 0xC2 && byte < 0xA0 && byte >= 0x80) { return false }
            previous = byte
        }
        return true
    }
}
