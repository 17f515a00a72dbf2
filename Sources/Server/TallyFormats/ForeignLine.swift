package import TallyCore

/// One line of Segment or PostHog input, read without a JSON tree for its property objects:
/// `properties`, `traits` and `context` are decoded member by member as ``EventProperties``, so
/// nested objects and arrays keep the exact text they were sent with (and no tree is built and
/// written back for them). Every other member is parsed as a ``JSONValue``.
package struct ForeignLine: Sendable {
    /// One object of the line: the line itself, or one message of its `batch`.
    package struct Message: Sendable {
        /// The members other than the property objects, in order.
        package var members: [JSONMember] = []
        /// `properties`, `traits` and `context`, when they are objects (a list: at most three, and
        /// a dictionary cost more to build than a scan of three).
        package var objects: [(key: String, value: EventProperties)] = []
        /// A key given twice inside one of ``objects`` (`properties.plan`), if any.
        package var duplicate: String?

        /// The last member named `key`.
        package func member(_ key: String) -> JSONValue? {
            members.last { $0.key == key }?.value
        }

        /// Whether the message has a member named `key` (property objects included).
        package func has(_ key: String) -> Bool {
            object(key) != nil || member(key) != nil
        }

        /// The property object `key`: nil when absent or null; a type problem when not an object;
        /// a duplicate key inside it is refused.
        /// The property object `key`, if it was one.
        package func object(_ key: String) -> EventProperties? {
            objects.last { $0.key == key }?.value
        }

        func properties(_ key: String, path: String) throws(EnvelopeDecodingError) -> EventProperties? {
            if let object = object(key) {
                if let duplicate, duplicate.hasPrefix(key + ".") {
                    throw EnvelopeDecodingError(.duplicateField, path: "\(path).\(duplicate)", message: "given twice")
                }
                return object
            }
            switch member(key) {
            case nil, .null?: return nil
            case let other?:
                throw EnvelopeDecodingError(
                    .wrongType,
                    path: "\(path).\(key)",
                    message: "expected an object, got \(other.typeName)"
                )
            }
        }
    }

    /// The line's top-level object (for a batch wrapper: its `sentAt`, `context`, `api_key`, …).
    package var top: Message
    /// The messages of a `batch` array (nil: an element that is not an object); nil without one.
    package var batch: [Message?]?

    static let objectKeys: Set<String> = ["properties", "traits", "context"]

    /// Reads `line`; malformed JSON (anywhere in the line) is an error for the whole line.
    /// `bareArrayIsBatch`: a top-level array is read as the `batch` of an empty wrapper (PostHog's
    /// `/batch` takes one).
    package init(_ line: UnsafeBufferPointer<UInt8>, bareArrayIsBatch: Bool = false) throws(EnvelopeDecodingError) {
        var parser = JSONParser(bytes: line)
        parser.skipWhitespace()
        if bareArrayIsBatch, parser.peek() == UInt8(ascii: "[") {
            do throws(JSONError) {
                top = Message()
                batch = try Self.elements(&parser)
                parser.skipWhitespace()
                guard parser.peek() == nil else { throw JSONError(.trailingContent, at: parser.offset) }
            } catch {
                throw EnvelopeDecodingError(.malformedJSON, path: "$", message: error.description)
            }
            return
        }
        if parser.peek() != UInt8(ascii: "{") {
            do throws(JSONError) {
                _ = try parser.parseDocument()
            } catch {
                throw EnvelopeDecodingError(.malformedJSON, path: "$", message: error.description)
            }
            throw EnvelopeDecodingError(.notAnObject, path: "$", message: "a message must be a JSON object")
        }
        do throws(JSONError) {
            var batch: [Message?]?
            top = try Self.message(&parser, batch: &batch)
            self.batch = batch
            parser.skipWhitespace()
            guard parser.peek() == nil else { throw JSONError(.trailingContent, at: parser.offset) }
        } catch {
            throw EnvelopeDecodingError(.malformedJSON, path: "$", message: error.description)
        }
    }

    /// Reads one object; `batch` is filled from a top-level `batch` array (pass nil for nested
    /// messages, whose `batch` member stays a plain member).
    private static func message(_ parser: inout JSONParser, batch: inout [Message?]?, isTop: Bool = true)
        throws(JSONError) -> Message
    {
        var message = Message()
        try parser.expect(UInt8(ascii: "{"))
        parser.skipWhitespace()
        if parser.peek() == UInt8(ascii: "}") {
            try parser.expect(UInt8(ascii: "}"))
            return message
        }
        while true {
            parser.skipWhitespace()
            guard parser.peek() == UInt8(ascii: "\"") else {
                throw JSONError(parser.peek() == nil ? .unexpectedEnd : .unexpectedCharacter, at: parser.offset)
            }
            let key = try parser.parseString()
            parser.skipWhitespace()
            try parser.expect(UInt8(ascii: ":"))
            parser.skipWhitespace()
            if objectKeys.contains(key), parser.peek() == UInt8(ascii: "{") {
                let (properties, duplicate) = try parser.parsePropertyObject()
                if let duplicate, message.duplicate == nil { message.duplicate = key + "." + duplicate }
                message.objects.removeAll { $0.key == key }
                message.objects.append((key, properties))
            } else if isTop, key == "batch", parser.peek() == UInt8(ascii: "[") {
                batch = try elements(&parser)
            } else {
                message.members.append(JSONMember(key: key, value: try parser.parseValue(depth: 0)))
            }
            parser.skipWhitespace()
            guard let next = parser.peek() else { throw JSONError(.unexpectedEnd, at: parser.offset) }
            try parser.expect(next)
            if next == UInt8(ascii: "}") { break }
            guard next == UInt8(ascii: ",") else { throw JSONError(.unexpectedCharacter, at: parser.offset - 1) }
        }
        return message
    }

    private static func elements(_ parser: inout JSONParser) throws(JSONError) -> [Message?] {
        var elements: [Message?] = []
        try parser.expect(UInt8(ascii: "["))
        parser.skipWhitespace()
        if parser.peek() == UInt8(ascii: "]") {
            try parser.expect(UInt8(ascii: "]"))
            return elements
        }
        while true {
            parser.skipWhitespace()
            if parser.peek() == UInt8(ascii: "{") {
                var nested: [Message?]?
                elements.append(try message(&parser, batch: &nested, isTop: false))
            } else {
                _ = try parser.parseValue(depth: 1)
                elements.append(nil)
            }
            parser.skipWhitespace()
            guard let next = parser.peek() else { throw JSONError(.unexpectedEnd, at: parser.offset) }
            try parser.expect(next)
            if next == UInt8(ascii: "]") { break }
            guard next == UInt8(ascii: ",") else { throw JSONError(.unexpectedCharacter, at: parser.offset - 1) }
        }
        return elements
    }
}

extension ForeignLine {
    /// Maps each message of the line (the line itself, or every element of its `batch`) with
    /// `body(message, path, batchWrapper)`; an element that is not an object, or a `batch` that is
    /// not an array, is refused with its path.
    func mapMessages(
        _ body: (Message, String, Message?) throws(EnvelopeDecodingError) -> EventEnvelope
    ) -> [Result<EventEnvelope, EnvelopeDecodingError>] {
        guard let batch else {
            if top.has("batch") {
                return [.failure(EnvelopeDecodingError(.wrongType, path: "$.batch", message: "expected an array"))]
            }
            return [Result { () throws(EnvelopeDecodingError) in try body(top, "$", nil) }]
        }
        return batch.enumerated().map { index, message in
            Result { () throws(EnvelopeDecodingError) in
                guard let message else {
                    throw EnvelopeDecodingError(.notAnObject, path: "$.batch[\(index)]", message: "expected an object")
                }
                return try body(message, "$.batch[\(index)]", top)
            }
        }
    }
}
