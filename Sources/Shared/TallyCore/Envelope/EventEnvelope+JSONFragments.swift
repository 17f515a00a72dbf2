extension EventProperties {
    /// Appends the properties as a JSON object, keys in byte order: the form every encoder writes.
    package func appendJSON(to bytes: inout [UInt8]) {
        if let text {
            text.appendJSON(to: &bytes)
            return
        }
        bytes.append(UInt8(ascii: "{"))
        var first = true
        forEachSorted { key, value in
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            JSONWriter.appendString(key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            JSONWriter.appendValue(value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }
}

extension EventContext {
    /// Appends the context as a JSON object of its set fields, in a fixed order.
    package func appendJSON(to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        // One call per field, not a loop over an array of pairs: this runs for every event.
        var first = true
        Self.appendField("app_version", appVersion, first: &first, to: &bytes)
        Self.appendField("app_build", appBuild, first: &first, to: &bytes)
        Self.appendField("platform", platform, first: &first, to: &bytes)
        Self.appendField("os_version", osVersion, first: &first, to: &bytes)
        Self.appendField("locale", locale, first: &first, to: &bytes)
        if let text = additional.text {
            text.appendMembers(to: &bytes, first: &first)
        } else if !additional.isEmpty {
            additional.forEachSorted { key, value in
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                JSONWriter.appendString(key, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                JSONWriter.appendValue(value, to: &bytes)
            }
        }
        bytes.append(UInt8(ascii: "}"))
    }

    private static func appendField(_ key: StaticString, _ value: String?, first: inout Bool, to bytes: inout [UInt8]) {
        guard let value else { return }
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        JSONWriter.appendString(value, to: &bytes)
    }
}

extension JSONWriter {
    /// Appends a JSON array of strings.
    package static func appendStrings(_ strings: [String], to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "["))
        for (index, string) in strings.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            appendString(string, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }
}
