import TallyCore

/// The `json` format of `tally summary`: one object with the store read, the query as applied
/// (filters with absolute RFC 3339 times, sort, limit), the rows, the total and what was skipped.
enum SummaryJSON {
    static func render(_ summary: Summary, query: SummaryQuery, store: SummaryStore) -> String {
        var object: [JSONMember] = [
            JSONMember(
                key: "store",
                value: .object([
                    JSONMember(key: "kind", value: .string(store.kind.rawValue)),
                    JSONMember(key: "location", value: .string(store.location)),
                    JSONMember(key: "chosen_by", value: .string(store.chosenBy)),
                ])
            ),
            JSONMember(key: "group_by", value: .string(query.grouping.rawValue)),
            JSONMember(
                key: "filters",
                value: .object([
                    JSONMember(key: "feature", value: query.feature.map(JSONValue.string) ?? .null),
                    JSONMember(key: "event", value: query.event.map(JSONValue.string) ?? .null),
                    JSONMember(key: "since", value: query.since.map { .string($0.rfc3339) } ?? .null),
                    JSONMember(key: "until", value: query.until.map { .string($0.rfc3339) } ?? .null),
                ])
            ),
            JSONMember(key: "sort", value: .string(query.sort.rawValue)),
            JSONMember(key: "limit", value: query.limit.map(number) ?? .null),
            JSONMember(key: "rows", value: .array(summary.rows.map { row(query.grouping.rawValue, $0) })),
            JSONMember(key: "groups", value: number(summary.groupCount)),
            JSONMember(key: "total", value: summary.total.map { row(nil, $0) } ?? .null),
            JSONMember(key: "total_events", value: number(summary.total?.events ?? 0)),
            // Stored counts stay `events`; estimates (sampled events as 1 / sample_rate) are apart.
            JSONMember(key: "estimated_total_events", value: number(summary.total?.estimatedEvents ?? 0)),
            JSONMember(key: "sampled", value: .bool(summary.isSampled)),
            JSONMember(key: "duplicates_skipped", value: number(summary.duplicates)),
            JSONMember(key: "unreadable_lines", value: number(summary.unreadableLines + summary.tornLines)),
        ]
        if !summary.identities.isEmpty {
            object.append(
                JSONMember(
                    key: "identities",
                    value: .object(
                        EventKind.allCases.filter(\.isIdentity).map {
                            JSONMember(key: $0.rawValue, value: number(summary.identities[$0] ?? 0))
                        }
                    )
                )
            )
        }
        return JSONWriter.text(.object(object)) + "\n"
    }

    private static func row(_ keyName: String?, _ row: SummaryRow) -> JSONValue {
        .object(
            (keyName.map { [JSONMember(key: $0, value: .string(row.key))] } ?? []) + [
                JSONMember(key: "events", value: number(row.events)),
                JSONMember(key: "estimated_events", value: number(row.estimatedEvents)),
                JSONMember(key: "unique_users", value: number(row.uniqueUsers)),
                JSONMember(key: "event_types", value: number(row.eventTypes)),
                JSONMember(key: "first_seen", value: .string(row.firstSeen.rfc3339)),
                JSONMember(key: "last_seen", value: .string(row.lastSeen.rfc3339)),
            ]
        )
    }

    private static func number(_ value: Int) -> JSONValue { .number(JSONNumber(text: String(value))) }
}
