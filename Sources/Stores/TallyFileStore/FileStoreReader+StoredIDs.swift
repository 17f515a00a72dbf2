package import TallyCore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension FileStoreReader {
    /// Which of `candidates` (event ids by the UTC day they occurred on, identity records apart)
    /// the store holds already, read as readers read it: a torn fragment that happens to hold an id
    /// does not count. Only the candidates' days are read, and a line is decoded only when its id
    /// is a candidate, so this costs a scan of those days' files.
    package func storedIDs(
        events: [CivilDate: Set<EventID>],
        identities: [CivilDate: Set<EventID>]
    ) throws -> Set<EventID> {
        var found = Set<EventID>()
        let decoder = EnvelopeDecoder()
        for (segments, candidates) in [
            (try layout.eventSegments(), events), (try layout.identitySegments(), identities),
        ] {
            for segment in segments {
                guard let wanted = candidates[segment.day], !wanted.isEmpty else { continue }
                let descriptor = systemOpen(segment.path, O_RDONLY | O_CLOEXEC)
                guard descriptor >= 0 else {
                    if errno == ENOENT { continue }
                    throw IOError(.open, path: segment.path, errno: errno)
                }
                defer { close(descriptor) }
                var reader = LineReader(descriptor: descriptor, path: segment.path)
                try reader.forEachLine { line in
                    guard line.oversizedLength == nil, !line.bytes.isEmpty else { return }
                    if let id = Self.leadingID(line.bytes), !wanted.contains(id) { return }
                    guard let event = try? decoder.decodeDerivingMissingID(line.bytes),
                        wanted.contains(event.eventID)
                    else { return }
                    found.insert(event.eventID)
                }
            }
        }
        return found
    }

    /// The id of a line the file store wrote (`{"event_id":"…"` first), without decoding the rest.
    static func leadingID(_ line: UnsafeBufferPointer<UInt8>) -> EventID? {
        let prefix: StaticString = #"{"event_id":""#
        let length = prefix.utf8CodeUnitCount
        guard line.count >= length + 36, memcmp(line.baseAddress!, prefix.utf8Start, length) == 0 else { return nil }
        return EventID(canonicalBytes: UnsafeBufferPointer(rebasing: line[length..<length + 36]))
    }
}
