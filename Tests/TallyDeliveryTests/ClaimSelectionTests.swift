import TallyCore
import Testing

@testable import TallyDelivery

/// What an upload cycle claims (marks in flight and reads) against what its request then carries,
/// without a disk: the two must be the same batches, or a cycle reads and decodes a batch for
/// nothing and the next reads it again.
@Suite("Claim selection")
struct ClaimSelectionTests {
    static func batch(_ sequence: UInt64, _ events: Int) -> BatchName { BatchName(sequence: sequence, events: events) }
    static func report(_ sequence: UInt64) -> BatchName { BatchName(diagnosticsSequence: sequence) }

    @Test("a report ahead of a full batch goes alone; the batch is claimed by the next cycle only")
    func reportAheadOfFullBatch() {
        let waiting = [Self.batch(1, 1000), Self.batch(2, 1000), Self.report(3)]
        #expect(ClaimSelection.select(waiting, maxEvents: 1000) == [Self.report(3)])
        #expect(ClaimSelection.select(Array(waiting.prefix(2)), maxEvents: 1000) == [Self.batch(1, 1000)])
    }

    @Test("a small batch ahead of a full one goes alone: a request carries whole batches")
    func smallAheadOfFull() {
        let waiting = [Self.batch(1, 7), Self.batch(2, 1000), Self.batch(3, 1000)]
        #expect(ClaimSelection.select(waiting, maxEvents: 1000) == [Self.batch(1, 7)])
    }

    @Test("batches that fit whole go together, reports first, then oldest first, up to the limit")
    func fillsUpToTheLimit() {
        let waiting = [Self.batch(4, 300), Self.batch(2, 300), Self.report(5), Self.batch(1, 300), Self.batch(3, 100)]
        let inOrder = [Self.report(5), Self.batch(1, 300), Self.batch(2, 300), Self.batch(3, 100), Self.batch(4, 300)]
        // The report is one event on the wire: 1 + 300 + 300 + 100 leaves room for 299 of 1,000.
        #expect(ClaimSelection.select(waiting, maxEvents: 1000) == Array(inOrder.prefix(4)))
        #expect(ClaimSelection.select(waiting, maxEvents: 1001) == inOrder)
    }

    @Test("the first batch goes even when it is larger than the limit (a 413 lowered it: it is split on disk)")
    func firstBatchLargerThanTheLimit() {
        #expect(
            ClaimSelection.select([Self.batch(1, 1000), Self.batch(2, 1)], maxEvents: 500) == [Self.batch(1, 1000)]
        )
        #expect(ClaimSelection.select([Self.report(3), Self.batch(1, 1000)], maxEvents: 1) == [Self.report(3)])
        #expect(ClaimSelection.select([], maxEvents: 1000).isEmpty)
    }

    @Test("the request carries every claimed batch, and no batch it could carry is left unclaimed")
    func claimsMatchTheRequest() {
        let pool = OutboxFixture.events(1000)
        var random = SplitMix64(seed: 38)
        for _ in 0..<300 {
            let limit = Int.random(in: 1...1200, using: &random)
            var waiting: [BatchName] = []
            for sequence in 1...UInt64.random(in: 1...10, using: &random) {
                if Int.random(in: 0..<6, using: &random) == 0 {
                    waiting.append(Self.report(sequence))
                } else {
                    let size = Bool.random(using: &random) ? 1000 : Int.random(in: 1...1000, using: &random)
                    waiting.append(Self.batch(sequence, size))
                }
            }
            let claimed = ClaimSelection.select(waiting, maxEvents: limit).map(\.description)
            // What the uploader builds from the claims, and what it would build from everything waiting.
            for offered in [waiting.filter { claimed.contains($0.description) }, waiting] {
                let ordered = offered.sorted { $0.isDiagnostics != $1.isDiagnostics ? $0.isDiagnostics : $0 < $1 }
                let request = UploadRequest(
                    ordered.map { name in
                        (Outbox.Claim(name: name.description, batch: name), Array(pool.prefix(max(1, name.events))))
                    },
                    acknowledged: [:],
                    limit: limit
                )
                let carried = request.complete + request.partial.map(\.name)
                #expect(carried == claimed, "limit \(limit), waiting \(waiting.map(\.description))")
            }
        }
    }
}
