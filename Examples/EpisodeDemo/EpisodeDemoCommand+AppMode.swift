import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import TallyDelivery
import TallyPipeline

extension EpisodeDemoCommand {
    /// App mode: the feature's events through the outbox and the uploader, then the JSON line.
    func runAppMode(validation: EventValidation?, logger: Logger) async throws {
        var configuration = app.configuration
        configuration.validation = validation
        // The plan's personal data and sample rates apply on the device too (issue 18).
        configuration.trackingPlan = validation?.validator.registry
        let delivery: TallyDelivery
        do {
            delivery = try TallyDelivery(configuration: configuration, logger: logger)
            // --consent: what the user chose in the app's settings, remembered in the outbox directory.
            if let consent = app.consent { try await delivery.setConsent(consent) }
        } catch {
            logger.error("cannot open the outbox", metadata: ["error": "\(error)"])
            throw ExitCode(1)
        }
        let demo = EpisodeDemoApp(
            tracker: delivery.tracker(
                feature: "episode",
                identity: TrackerIdentity(anonymousID: "demo-install", sessionID: app.runID)
            ),
            visits: untilSignal ? nil : visits,
            rate: app.rate,
            logger: logger
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
        let line =
            #"{"tracked":\#(run.tracked),"written":\#(run.written),"uploaded":\#(run.uploaded),"#
            + #""dropped":\#(run.dropped),"dead_lettered":\#(run.deadLettered),"#
            + #""consent":"\#(delivery.consent.rawValue)","discarded_no_consent":\#(run.discardedNoConsent),"#
            + #""sampled_out":\#(run.sampledOut),"#
            + #""outbox":{"written":\#(outbox.written),"uploaded":\#(outbox.uploaded),"dropped":\#(outbox.dropped),"#
            + #""dead_lettered":\#(outbox.deadLettered),"waiting":\#(outbox.waitingEvents),"#
            + #""corrupt":\#(outbox.corruptEvents),"purged":\#(outbox.purged)}}"# + "\n"
        FileHandle.standardOutput.write(Data(line.utf8))
    }

    private static func printProgress(_ statistics: DeliveryStatistics) {
        let line =
            #"{"progress":{"tracked":\#(statistics.tracked),"written":\#(statistics.written),"#
            + #""uploaded":\#(statistics.uploaded)}}"# + "\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}
