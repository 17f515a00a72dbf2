import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import TallyCore
import TallyDelivery
import TallyPipeline

extension EpisodeDemoCommand {
    /// App mode: the feature's events through the outbox and the uploader, then the JSON line.
    func runAppMode(validation: EventValidation?, logger: Logger) async throws {
        var configuration = app.configuration
        configuration.validation = validation
        let platform = DemoLifecycleHook()
        sdk.apply(to: &configuration, hook: platform)
        // The plan's personal data and sample rates apply on the device too (issue 18).
        configuration.trackingPlan = validation?.validator.registry
        let delivery: TallyDelivery
        do {
            delivery = try TallyDelivery(configuration: configuration, logger: logger)
            // --consent: what the user chose in the app's settings, remembered in the outbox directory.
            if let consent = app.consent { try await delivery.setConsent(consent) }
        } catch let error as DeliveryError where error.code == .invalidConfiguration {
            logger.error("invalid delivery settings", metadata: ["error": "\(error)"])
            throw ExitCode.validationFailure
        } catch {
            logger.error("cannot open the outbox", metadata: ["error": "\(error)"])
            throw ExitCode(1)
        }
        delivery.superProperties = sdk.superProperties
        let sdk = self.sdk
        let demo = EpisodeDemoApp(
            // The install's anonymous id (identity.json) and the session are the delivery's;
            // --run-id, when given, is this run's session id instead.
            tracker: delivery.tracker(feature: "episode", identity: TrackerIdentity(sessionID: app.runID)),
            visits: untilSignal ? nil : visits,
            rate: app.rate,
            logger: logger,
            afterVisit: { visit in
                // A login, a logout, a trip to the background: what an app's screens would call.
                if visit == sdk.loginAfter { delivery.identify(userID: sdk.userID, traits: ["plan": "premium"]) }
                if visit == sdk.logoutAfter { delivery.reset() }
                if visit == sdk.backgroundAfter {
                    platform.send(.enteredBackground)
                    platform.send(.enteredForeground)
                }
            }
        )
        var group = ServiceGroupConfiguration(
            services: [
                .init(service: delivery),
                .init(service: demo, successTerminationBehavior: .gracefullyShutdownGroup),
            ],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        // The outbox is written within a batch interval; the uploads get --flush-timeout; past
        // both (and a margin) the group is cancelled, so the process always ends.
        group.maximumGracefulShutdownDuration = .seconds(app.flushTimeout + app.batchInterval + 10)
        let showProgress = app.progress
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            if showProgress {
                tasks.addTask {
                    while !Task.isCancelled {
                        Self.printProgress(delivery.statistics)
                        try await Task.sleep(for: .milliseconds(200))
                    }
                }
            }
            try await ServiceGroup(configuration: group).run()
            tasks.cancelAll()
        }
        if showProgress { Self.printProgress(delivery.statistics) }
        let run = delivery.statistics
        let outbox = await delivery.state()
        // The session id the run's events carry: --run-id replaces the delivery's own on them.
        let sessionID = app.runID ?? delivery.sessionID
        let line =
            #"{"tracked":\#(run.tracked),"written":\#(run.written),"uploaded":\#(run.uploaded),"#
            + #""dropped":\#(run.dropped),"dead_lettered":\#(run.deadLettered),"#
            + #""rejected_by_collector":\#(run.rejectedByCollector),"#
            + #""consent":"\#(delivery.consent.rawValue)","discarded_no_consent":\#(run.discardedNoConsent),"#
            + #""sampled_out":\#(run.sampledOut),"#
            + #""outbox":{"written":\#(outbox.written),"uploaded":\#(outbox.uploaded),"dropped":\#(outbox.dropped),"#
            + #""dead_lettered":\#(outbox.deadLettered),"waiting":\#(outbox.waitingEvents),"#
            + #""corrupt":\#(outbox.corruptEvents),"dropped_by_hooks":\#(outbox.droppedByHooks),"#
            + #""purged":\#(outbox.purged)},"#
            + #""dropped_by_hooks":\#(run.droppedByHooks),"anonymous_id":"\#(delivery.anonymousID)","#
            + #""user_id":\#(Self.json(delivery.userID)),"session_id":\#(Self.json(sessionID))}"# + "\n"
        FileHandle.standardOutput.write(Data(line.utf8))
    }

    /// A JSON string, or null (escaped: `--run-id` is free text).
    private static func json(_ text: String?) -> String {
        guard let text else { return "null" }
        var bytes: [UInt8] = []
        JSONWriter.appendString(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func printProgress(_ statistics: DeliveryStatistics) {
        let line =
            #"{"progress":{"tracked":\#(statistics.tracked),"written":\#(statistics.written),"#
            + #""uploaded":\#(statistics.uploaded)}}"# + "\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}
