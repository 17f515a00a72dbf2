import ArgumentParser
import TallyCore
import TallyOperations

/// `tally generate`: synthetic NDJSON for the Examples plans.
struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write synthetic events for the Examples tracking plans as NDJSON to stdout.",
        discussion: """
            Users browsing, searching and playing episodes over --days days; deterministic for a --seed. \
            --bad-every N adds one invalid line after every N events (malformed JSON, wrong types, bad names…).

            Examples:
              tally generate --events 1000000 > big.ndjson
              tally generate --events 5000 --bad-every 500 | tally ingest --registry Examples/registry
            """
    )

    @Option(name: .long, parsing: .unconditional, help: "Events to write.")
    var events: Int = 10_000

    @Option(name: .long, parsing: .unconditional, help: "Random seed: the same seed gives the same file.")
    var seed: UInt64 = 42

    @Option(name: .long, parsing: .unconditional, help: "Days the events span, ending 2026-11-22T00:00Z.")
    var days: Int = 14

    @Option(name: .long, parsing: .unconditional, help: "Distinct users.")
    var users: Int = 500

    @Option(name: .long, parsing: .unconditional, help: "Add an invalid line after every N events (0: none).")
    var badEvery: Int = 0

    func validate() throws {
        guard events >= 0 else { throw ValidationError("--events must be 0 or more.") }
        // At most a century: the span in nanoseconds overflowed past ~106,000 days.
        guard (1...36_500).contains(days) else { throw ValidationError("--days must be 1 to 36500 (a century).") }
        guard users >= 1 else { throw ValidationError("--users must be at least 1.") }
        guard badEvery >= 0 else { throw ValidationError("--bad-every must be 0 or more (0: no invalid lines).") }
    }

    func run() throws {
        let generator = SampleGenerator(events: events, seed: seed, days: days, users: users, badEvery: badEvery)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 20)
        do {
            try generator.generate { line in
                buffer.append(contentsOf: line)
                buffer.append(UInt8(ascii: "\n"))
                if buffer.count >= 1 << 20 {
                    try FileDescriptorWriter.writeAll(buffer, to: 1, path: "<stdout>")
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            try FileDescriptorWriter.writeAll(buffer, to: 1, path: "<stdout>")
        } catch {
            Terminal.error("cannot write: \(error)")
            throw ExitCode.ioError
        }
    }
}
