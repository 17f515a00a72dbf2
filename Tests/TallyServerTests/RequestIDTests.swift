import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import TallyServer

/// `X-Request-Id`: 32 lowercase hex digits, every digit written (Hummingbird's own id dropped the
/// leading zeros of its random half: 31 digits in one process of 16), the same id in the dead letters.
@Suite("Request ids")
struct RequestIDTests {
    /// 32 lowercase hex digits.
    static func isWellFormed(_ id: String?) -> Bool {
        guard let id else { return false }
        return id.utf8.count == 32
            && id.utf8.allSatisfy {
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
            }
    }

    @Test("leading zeros of either half are written; the counter wraps; ids are unique")
    func digits() {
        let small = RequestIDGenerator(high: 0x1, start: 0xab)
        #expect(small.next() == "000000000000000100000000000000ab")
        #expect(small.next() == "000000000000000100000000000000ac")
        let wrapping = RequestIDGenerator(high: .max, start: .max)
        #expect(wrapping.next() == "ffffffffffffffffffffffffffffffff")
        #expect(wrapping.next() == "ffffffffffffffff0000000000000000")
        let random = RequestIDGenerator()
        let ids = (0..<10_000).map { _ in random.next() }
        #expect(ids.allSatisfy(Self.isWellFormed))
        #expect(Set(ids).count == ids.count)
    }

    @Test("every reply's X-Request-Id is well formed and its own; a reject's dead letter has the same id")
    func header() async throws {
        let fixture = RouterTests.Fixture()
        let bad = #"[{"name":"episode_played","occurred_at":"yesterday"}]"#
        let (ids, rejected) = try await fixture.test { client in
            var ids: [String?] = []
            for _ in 0..<50 {
                ids.append(try await client.execute(uri: "/healthz", method: .get).headers[.requestID])
                ids.append(try await client.execute(uri: "/nowhere", method: .get).headers[.requestID])
            }
            let reply = try await client.execute(
                uri: "/v1/events",
                method: .post,
                headers: RouterTests.bearer,
                body: .init(string: bad)
            )
            return (ids, reply.headers[.requestID])
        }
        #expect(ids.allSatisfy(Self.isWellFormed), "\(ids.first { !Self.isWellFormed($0) } ?? "")")
        #expect(Set(ids.compactMap { $0 }).count == ids.count)
        #expect(Self.isWellFormed(rejected))
        #expect(fixture.rejects.rejects.compactMap(\.requestID) == [try #require(rejected)])
    }
}
