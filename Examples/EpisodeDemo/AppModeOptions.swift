import ArgumentParser
import Foundation
import TallyDelivery

/// The flags of app mode: where the outbox is, where the collector is, and how delivery behaves.
struct AppModeOptions: ParsableArguments {
    @Option(name: .long, help: "The collector's base URL (app mode), e.g. http://127.0.0.1:8080.")
    var endpoint: String?

    @Option(name: .long, help: "The write key for the collector (app mode).")
    var writeKey: String?

    @Option(name: .long, help: "The outbox directory (app mode); shared by every run that names it.")
    var outbox: String?

    @Option(name: .long, parsing: .unconditional, help: "Screen visits per second (default: as fast as possible).")
    var rate: Double?

    @Option(name: .long, parsing: .unconditional, help: "Seconds between outbox writes: the most a kill -9 can lose.")
    var batchInterval: Double = 1

    @Option(name: .long, parsing: .unconditional, help: "Seconds between uploads (also as soon as 100 events wait).")
    var uploadInterval: Double = 10

    @Option(
        name: .long,
        parsing: .unconditional,
        help: "Cap on the outbox's bytes (at least 65536); past it the oldest batches are dropped."
    )
    var maxOutboxBytes: Int?

    @Option(name: .long, parsing: .unconditional, help: "Cap on the events waiting in the outbox.")
    var maxOutboxEvents: Int?

    @Option(name: .long, parsing: .unconditional, help: "Cap on the age of a waiting batch, in seconds.")
    var maxOutboxAge: Double?

    @Flag(name: .long, help: "Send Segment batches (POST /v1/batch) instead of tally NDJSON.")
    var segment = false

    @Option(name: .long, parsing: .unconditional, help: "Seconds a graceful end keeps uploading.")
    var flushTimeout: Double = 10

    @Flag(name: .long, help: "Print {\"progress\":{…}} on stderr every 200 ms.")
    var progress = false

    @Option(name: .long, help: "Stamped as session_id on every event, to find this run's events.")
    var runID: String?

    @Option(
        name: .long,
        help: """
            The user's consent: granted, pending (kept in the outbox, not uploaded) or denied (nothing kept, the \
            outbox emptied). Remembered in the outbox directory, like an app's settings (default: what it remembers, \
            else granted).
            """
    )
    var consent: ConsentState?

    /// Whether the run uses the outbox and the uploader.
    var isEnabled: Bool { endpoint != nil || writeKey != nil || outbox != nil }

    func validate() throws {
        guard isEnabled else {
            // Named one by one: the outbox caps were silently unused in file mode.
            let given = [
                ("--segment", segment), ("--progress", progress), ("--run-id", runID != nil), ("--rate", rate != nil),
                ("--consent", consent != nil), ("--max-outbox-bytes", maxOutboxBytes != nil),
                ("--max-outbox-events", maxOutboxEvents != nil), ("--max-outbox-age", maxOutboxAge != nil),
            ].filter(\.1).map(\.0)
            if !given.isEmpty {
                throw ValidationError(
                    "\(given.joined(separator: ", ")) \(given.count == 1 ? "acts" : "act") only in app mode: "
                        + "give --endpoint, --write-key and --outbox."
                )
            }
            return
        }
        guard let endpoint, writeKey != nil, let outbox else {
            throw ValidationError("App mode needs all three of --endpoint, --write-key and --outbox.")
        }
        guard let url = URL(string: endpoint), let scheme = url.scheme, ["http", "https"].contains(scheme),
            url.host != nil
        else {
            throw ValidationError("--endpoint must be an http(s) URL with a host, e.g. http://127.0.0.1:8080.")
        }
        guard !outbox.isEmpty else { throw ValidationError("--outbox must not be empty.") }
        try SecondsOption.check("--batch-interval", batchInterval)
        try SecondsOption.check("--upload-interval", uploadInterval)
        try SecondsOption.check("--flush-timeout", flushTimeout, zeroAllowed: true)
        // The pause between visits is 1 / rate seconds: a rate near zero overflowed it.
        if let rate, !(0.001...1_000_000).contains(rate) {
            throw ValidationError("--rate \(rate): give visits a second from 0.001 to 1000000.")
        }
        if let maxOutboxBytes, maxOutboxBytes < OutboxCaps.minimumMaxBytes {
            throw ValidationError(
                "--max-outbox-bytes \(maxOutboxBytes): give at least \(OutboxCaps.minimumMaxBytes) bytes."
            )
        }
        if let maxOutboxEvents, maxOutboxEvents < 1 {
            throw ValidationError("--max-outbox-events \(maxOutboxEvents): give at least 1.")
        }
        if let maxOutboxAge { try SecondsOption.check("--max-outbox-age", maxOutboxAge) }
        if writeKey?.isEmpty == true {
            throw ValidationError("--write-key must not be empty: `tally keys add` prints one.")
        }
    }

    /// The delivery settings these flags ask for.
    var configuration: DeliveryConfiguration {
        var configuration = DeliveryConfiguration(
            outboxDirectory: outbox ?? "",
            endpoint: URL(string: endpoint ?? "")!,
            writeKey: writeKey ?? ""
        )
        configuration.wireFormat = segment ? .segment : .tally
        configuration.batchInterval = .seconds(batchInterval)
        configuration.uploadInterval = .seconds(uploadInterval)
        configuration.shutdownUploadTimeout = .seconds(flushTimeout)
        if let maxOutboxBytes { configuration.caps.maxBytes = maxOutboxBytes }
        if let maxOutboxEvents { configuration.caps.maxEvents = maxOutboxEvents }
        if let maxOutboxAge { configuration.caps.maxAge = .seconds(maxOutboxAge) }
        return configuration
    }
}
