extension EventEnvelope {
    /// Reads an envelope from one NDJSON line (the same fast decoder ingest uses: no JSON tree is built).
    ///
    /// - Parameter fallbackID: the id to use when the line has no `event_id` (ingest derives one
    ///   from the line's bytes); without one, a missing `event_id` is an error.
    package init(ndjsonLine line: some Collection<UInt8>, fallbackID: EventID? = nil) throws(EnvelopeDecodingError) {
        let bytes = Array(line)
        var decoded: Result<EventEnvelope, EnvelopeDecodingError> = .failure(
            EnvelopeDecodingError(.malformedJSON, path: "$", message: "empty")
        )
        bytes.withUnsafeBufferPointer { buffer in
            do throws(EnvelopeDecodingError) {
                decoded = .success(try EnvelopeDecoder().decode(buffer, fallbackID: fallbackID))
            } catch {
                decoded = .failure(error)
            }
        }
        self = try decoded.get()
    }

    /// Reads an envelope from a parsed JSON object. Unknown top-level keys are ignored; a known
    /// key given twice is refused (which one was meant cannot be known).
    package init(json: JSONValue, fallbackID: EventID? = nil) throws(EnvelopeDecodingError) {
        try self.init(ndjsonLine: Array(JSONWriter.text(json).utf8), fallbackID: fallbackID)
    }
}
