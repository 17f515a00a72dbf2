import Testing

@testable import TallyPostgres

@Suite("Load statements")
struct LoadStatementsTests {
    @Test("COPY inserts row by row (a volatile WHERE) on PostgreSQL 12 to 16 without Citus, with the buffer otherwise")
    func copyEventsByServer() {
        for version in [120_000, 150_018, 160_004] {
            #expect(
                LoadStatements.copyEvents(serverVersion: version, citus: false)
                    .hasSuffix("(FORMAT binary) WHERE random() >= 0")
            )
        }
        // Before 12 COPY takes no WHERE; 17 is not measured; Citus refuses COPY … WHERE; 0: unknown.
        let plain = [(110_022, false), (170_000, false), (180_001, false), (150_018, true), (0, false)]
        for (version, citus) in plain {
            #expect(LoadStatements.copyEvents(serverVersion: version, citus: citus).hasSuffix("(FORMAT binary)"))
        }
        #expect(
            LoadStatements.copyEvents(serverVersion: 150_018, citus: false).hasPrefix("COPY tally.events (event_id, ")
        )
    }
}
