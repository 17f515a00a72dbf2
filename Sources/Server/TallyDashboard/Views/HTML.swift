/// HTML text built from parts, escaped where it holds data: the pages are rendered on the server,
/// readable without JavaScript.
package enum HTML {
    /// `text` safe inside an element or a double-quoted attribute.
    package static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }

    /// A query string of `items` (`a=1&b=two%20words`), without the `?`.
    package static func query(_ items: [(String, String)]) -> String {
        items.map { "\(percentEncoded($0.0))=\(percentEncoded($0.1))" }.joined(separator: "&")
    }

    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

    package static func percentEncoded(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            if unreserved.contains(byte) {
                result.append(Character(UnicodeScalar(byte)))
            } else {
                let hex = Array("0123456789ABCDEF")
                result += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0xF)])
            }
        }
        return result
    }

    /// A number with thin thousands separators, for people (`12 345`); tables keep the plain
    /// number in `data-value`.
    package static func grouped(_ text: String) -> String {
        let negative = text.hasPrefix("-")
        let digits = negative ? String(text.dropFirst()) : text
        let parts = digits.split(separator: ".", maxSplits: 1)
        guard let whole = parts.first, whole.count > 4, whole.allSatisfy(\.isNumber) else { return text }
        var grouped = ""
        for (index, character) in whole.reversed().enumerated() {
            if index > 0, index % 3 == 0 { grouped.append("\u{2009}") }
            grouped.append(character)
        }
        return (negative ? "-" : "") + String(grouped.reversed()) + (parts.count == 2 ? "." + parts[1] : "")
    }
}
