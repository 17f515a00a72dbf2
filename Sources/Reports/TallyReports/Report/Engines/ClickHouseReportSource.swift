package import TallyClickHouse
package import TallyCore

/// Reports over ClickHouse: the events an evaluation needs, streamed as RowBinary from the
/// `Distributed` table (every shard answers), each `event_id` handed over once, each row built
/// as the envelope the file store holds. The evaluations are the same as on the other stores, so
/// the answers are too.
///
/// Copies of an event (re-sends not merged away yet) are identical rows; a set of the ids read
/// keeps the first. Funnels run in ``FunnelEvaluation`` (tally's own step machine over each
/// actor's events), not `windowFunnel`, whose windows and step rules differ from docs/reports.md.
package struct ClickHouseReportSource: ReportEventSource {
    package let client: ClickHouseClient
    /// The names of the events handed over, to tell a report over names the store never holds.
    package let names = Locked(Set<String>())

    package init(client: ClickHouseClient) {
        self.client = client
    }

    package func identities() async throws -> IdentityResolver {
        var resolver = IdentityResolver()
        var seen = Set<EventID>()
        try await client.stream(
            """
            SELECT event_id, type, name, occurred_at, user_id, anonymous_id, previous_id
            FROM tally.identities WHERE type IN ('identify', 'alias') FORMAT RowBinary
            """
        ) { bytes in
            var reader = RowBinaryReader(bytes)
            var used = 0
            while !reader.isAtEnd {
                do {
                    let id = try reader.uuid()
                    let type = try reader.string()
                    let name = try reader.string()
                    let occurredAt = try reader.micros()
                    let userID = try reader.nullableString()
                    let anonymousID = try reader.nullableString()
                    let previousID = try reader.nullableString()
                    used = reader.position
                    guard seen.insert(id).inserted else { continue }
                    resolver.add(
                        EventEnvelope(
                            eventID: id,
                            name: name,
                            occurredAt: occurredAt,
                            userID: userID,
                            anonymousID: anonymousID,
                            kind: EventKind(rawValue: type) ?? .identify,
                            previousID: previousID
                        )
                    )
                } catch {
                    break
                }
            }
            return used
        }
        return resolver
    }

    package func feed(_ needs: EventNeeds, into evaluation: inout any ReportEvaluation) async throws {
        let from = RowBinaryWriter.micros(needs.from)
        let to = RowBinaryWriter.micros(needs.to)
        var range = "occurred_at >= \(from) AND occurred_at < \(to)"
        if let wanted = needs.names { range += " AND " + ClickHouseSQL.isIn("name", wanted.sorted()) }
        var condition = "(\(range))"
        if !needs.lookbackNames.isEmpty {
            condition +=
                " OR (occurred_at < \(from) AND " + ClickHouseSQL.isIn("name", needs.lookbackNames.sorted()) + ")"
        }
        var seen = Set<EventID>()
        var seenNames = Set<String>()
        var consumed = evaluation
        defer { names.withLock { $0.formUnion(seenNames) } }
        try await client.stream(
            """
            SELECT event_id, name, feature, properties, occurred_at, user_id, anonymous_id, session_id, context,
                schema_version, sample_rate
            FROM tally.events WHERE \(condition) FORMAT RowBinary
            """
        ) { bytes in
            var reader = RowBinaryReader(bytes)
            var used = 0
            while !reader.isAtEnd {
                let line: [UInt8]
                let id: EventID
                do {
                    (id, line) = try Self.line(&reader)
                } catch {
                    break
                }
                used = reader.position
                guard seen.insert(id).inserted else { continue }
                let event = try EventEnvelope(ndjsonLine: line)
                if !(event.occurredAt < needs.from) { seenNames.insert(event.name) }
                consumed.consume(event)
            }
            return used
        }
        evaluation = consumed
    }

    /// One row as the NDJSON line of its envelope (the properties and context as stored).
    private static func line(_ reader: inout RowBinaryReader) throws(RowBinaryReader.Incomplete) -> (EventID, [UInt8]) {
        let id = try reader.uuid()
        let name = try reader.stringRange()
        let feature = try reader.stringRange()
        let properties = try reader.stringRange()
        let occurredAt = try reader.micros()
        let userID = try reader.nullableString()
        let anonymousID = try reader.nullableString()
        let sessionID = try reader.nullableString()
        let context = try reader.nullableStringRange()
        let schemaVersion = try reader.nullableString()
        let sampleRate = try reader.nullableFloat64()
        let bytes = reader.bytes
        var line: [UInt8] = []
        line.reserveCapacity(properties.count + 200)
        line.append(contentsOf: #"{"event_id":""#.utf8)
        id.appendCanonical(to: &line)
        line.append(contentsOf: #"","name":"#.utf8)
        JSONWriter.appendString(String(decoding: bytes[name], as: UTF8.self), to: &line)
        line.append(contentsOf: #","feature":"#.utf8)
        JSONWriter.appendString(String(decoding: bytes[feature], as: UTF8.self), to: &line)
        line.append(contentsOf: #","properties":"#.utf8)
        line.append(contentsOf: bytes[properties])
        line.append(contentsOf: #","occurred_at":""#.utf8)
        occurredAt.appendRFC3339(to: &line)
        line.append(UInt8(ascii: "\""))
        for (key, value) in [("user_id", userID), ("anonymous_id", anonymousID), ("session_id", sessionID)] {
            guard let value else { continue }
            line.append(contentsOf: ",\"\(key)\":".utf8)
            JSONWriter.appendString(value, to: &line)
        }
        if let context {
            line.append(contentsOf: #","context":"#.utf8)
            line.append(contentsOf: bytes[context])
        }
        if let schemaVersion {
            line.append(contentsOf: #","schema_version":"#.utf8)
            JSONWriter.appendString(schemaVersion, to: &line)
        }
        if let sampleRate {
            line.append(contentsOf: #","sample_rate":"#.utf8)
            line.append(contentsOf: JSONWriter.numberText(sampleRate).utf8)
        }
        line.append(UInt8(ascii: "}"))
        return (id, line)
    }
}
