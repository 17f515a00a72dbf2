import Foundation
import Testing

@testable import TallyDelivery

/// The per-event refusals of an acknowledged request, read from the collector's reply.
@Suite("Server rejects")
struct ServerRejectsTests {
    @Test("the rejects a reply lists are counted (tally's wire or Segment's), with the first reason; others count none")
    func replies() {
        let tally = ServerRejects(
            reply: Data(
                #"{"accepted":3,"rejected":[{"index":1,"reason":"unknown_property","path":"$.properties.build_flavor","#
                    .utf8
            )
                + Data(
                    #""message":"not in the plan"},{"index":4,"reason":"type_mismatch","path":"$","message":"x"}]}"#
                        .utf8
                )
        )
        #expect(tally.count == 2)
        #expect(tally.firstReason == "unknown_property" && tally.firstMessage == "not in the plan")
        #expect(ServerRejects(reply: Data(#"{"accepted":5,"rejected":[]}"#.utf8)).count == 0)
        #expect(ServerRejects(reply: Data(#"{"success":true}"#.utf8)).count == 0)  // Segment's answer
        // tally serve's answer on Segment's wire, when its plans refused a message of the batch.
        let segment = ServerRejects(
            reply: Data(
                #"{"success":true,"rejected":[{"index":0,"reason":"unknown_property","path":"$.properties.x","message":"m"}]}"#
                    .utf8
            )
        )
        #expect(
            segment.count == 1 && segment.firstReason == "unknown_property" && segment.firstPath == "$.properties.x"
        )
        #expect(ServerRejects(reply: Data("not json \"rejected\":[{".utf8)).count == 0)
    }
}
