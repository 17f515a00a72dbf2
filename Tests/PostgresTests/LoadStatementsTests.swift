import Testing

@testable import TallyPostgres

@Suite("Load statements")
struct LoadStatementsTests {
    @Test("COPY inserts row by row before PostgreSQL 17 (a volatile WHERE), with the multi-insert buffer from 17 on")
    func copyEventsByServerVersion() {
        for version in [140_000, 150_018, 160_004] {
            #expect(LoadStatements.copyEvents(serverVersion: version).hasSuffix("(FORMAT binary) WHERE random() >= 0"))
        }
        for version in [170_000, 180_001] {
            #expect(LoadStatements.copyEvents(serverVersion: version).hasSuffix("(FORMAT binary)"))
        }
        #expect(LoadStatements.copyEvents(serverVersion: 170_000).hasPrefix("COPY tally.events (event_id, "))
    }
}
