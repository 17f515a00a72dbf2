import TallyCore
package import TallyPostgres
import TallyReports
package import TallySchema

/// ``StatusObservations`` from PostgreSQL.
///
/// One pass over the window's events (partitions outside it are pruned) does everything that needs
/// them: per event name and version a row count and first/last time; for planned events the type
/// class of every top-level property (`jsonb_each`) and the required properties missing; for the
/// others their app versions, platforms and features. All grouped in the server, so what comes back
/// is a few rows per event and property, however many events there are. The hourly rollups tell
/// when never-seen events were last seen; `tally.failed_events` gives the rejected counts.
package struct PostgresStatusReader: Sendable {
    private let connection: PostgresConnection

    /// A reader on `connection`.
    package init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// Reads what the database holds in `window`, for `registry`'s plans.
    package func observe(_ window: StatusWindow, registry: SchemaRegistry) async throws -> StatusObservations {
        try await connection.execute("SET TimeZone = 'UTC'")
        let planned = registry.eventNames
        var observations = StatusObservations()
        let rows = try await connection.query(
            """
            SELECT e.name, coalesce(e.schema_version, ''), x.kind, x.key, x.class, x.extra, count(*),
                   min(e.event_id::text COLLATE "C") FILTER (WHERE x.kind IN ('p', 'm')),
                   min(e.occurred_at) FILTER (WHERE x.kind = 't'), max(e.occurred_at) FILTER (WHERE x.kind = 't')
            FROM tally.events e
            CROSS JOIN LATERAL (
                SELECT 't' AS kind, NULL::text AS key, NULL::text AS class, NULL::text AS extra
                UNION ALL
                SELECT 'p', p.key, \(ValueClass.sql.replacingOccurrences(of: "value", with: "p.value")), NULL
                FROM jsonb_each(e.properties) AS p WHERE e.name = ANY($3::text[])
                UNION ALL
                SELECT 'm', r.key, NULL, NULL
                FROM jsonb_array_elements_text(
                    coalesce($4::jsonb -> e.name -> coalesce(e.schema_version, ''), $4::jsonb -> e.name -> '')
                ) AS r(key)
                WHERE e.name = ANY($3::text[]) AND NOT e.properties ? r.key
                UNION ALL
                SELECT 'u', e.context ->> 'app_version', e.context ->> 'platform', e.feature
                WHERE NOT (e.name = ANY($3::text[]))
            ) AS x
            WHERE ($1::timestamptz IS NULL OR e.occurred_at >= $1::timestamptz)
              AND ($2::timestamptz IS NULL OR e.occurred_at < $2::timestamptz)
            GROUP BY 1, 2, 3, 4, 5, 6
            """,
            [window.since?.rfc3339, window.until?.rfc3339, Self.textArray(planned), Self.requiredMap(registry)]
        )
        for row in rows {
            guard row.count >= 10, let name = row[0], let version = row[1], let kind = row[2],
                let count = row[6].flatMap({ Int($0) })
            else { continue }
            let key = StatusObservations.EventVersion(name: name, version: version)
            switch kind {
            case "t":
                guard let first = row[8].flatMap(PostgresSummarizer.parseTimestamp),
                    let last = row[9].flatMap(PostgresSummarizer.parseTimestamp)
                else { continue }
                observations.eventsRead += count
                if var seen = observations.seen[name] {
                    seen.count += count
                    if first < seen.first { seen.first = first }
                    if seen.last < last { seen.last = last }
                    observations.seen[name] = seen
                } else {
                    observations.seen[name] = .init(count: count, first: first, last: last)
                }
                if registry.event(name) != nil { observations.versionCounts[key, default: 0] += count }
            case "p":
                guard let property = row[3], let valueClass = row[4], let example = row[7] else { continue }
                observations.propertyClasses[key, default: [:]][property, default: [:]][valueClass] = .init(
                    count: count,
                    example: example
                )
            case "m":
                guard let property = row[3], let example = row[7] else { continue }
                observations.missingRequired[key, default: [:]][property] = .init(count: count, example: example)
            case "u":
                var origins = observations.origins[name] ?? StatusObservations.Origins()
                if let appVersion = row[3] { origins.appVersions.insert(appVersion) }
                if let platform = row[4] { origins.sources.insert(platform) }
                if let feature = row[5] { origins.features.insert(feature) }
                observations.origins[name] = origins
            default: continue
            }
        }
        let neverSeen = planned.filter { observations.seen[$0] == nil }
        if !neverSeen.isEmpty {
            let last = try await connection.query(
                "SELECT name, max(last_seen) FROM tally.rollup_hourly WHERE name = ANY($1::text[]) GROUP BY name",
                [Self.textArray(neverSeen)]
            )
            for row in last {
                if let name = row[0], let time = row[1].flatMap(PostgresSummarizer.parseTimestamp) {
                    observations.lastSeenEver[name] = time
                }
            }
        }
        let failed = try await connection.query(
            """
            SELECT reason, count(*) FROM tally.failed_events
            WHERE ($1::timestamptz IS NULL OR failed_at >= $1::timestamptz)
              AND ($2::timestamptz IS NULL OR failed_at < $2::timestamptz)
            GROUP BY reason
            """,
            [window.since?.rfc3339, window.until?.rfc3339]
        )
        for row in failed {
            if let reason = row[0], let count = row[1].flatMap({ Int($0) }) { observations.rejected[reason] = count }
        }
        return observations
    }

    /// A PostgreSQL array literal of `values`: `{"a","b \"c\""}`.
    static func textArray(_ values: [String]) -> String {
        "{"
            + values.map { value in
                "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                    + "\""
            }.joined(separator: ",") + "}"
    }

    /// `{"event": {"1-0-0": ["required", …], "": [… of the latest]}}`: the required properties of
    /// every version of every planned event, "" for events stored without a version.
    static func requiredMap(_ registry: SchemaRegistry) -> String {
        let value = JSONValue.object(
            registry.eventNames.map { name in
                let versions = registry.versions(of: name)
                let latest = versions.last.map { [JSONMember(key: "", value: required($0))] } ?? []
                return JSONMember(
                    key: name,
                    value: .object(versions.map { JSONMember(key: $0.versionText, value: required($0)) } + latest)
                )
            }
        )
        return JSONWriter.text(value)
    }

    private static func required(_ schema: EventSchema) -> JSONValue {
        .array(RequiredProperties.of(schema).map { .string($0) })
    }
}
