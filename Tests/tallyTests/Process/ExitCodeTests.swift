import Foundation
import TallyTestSupport
import Testing

/// Sysexits codes, one meaning each, the same in every command.
@Suite("exit codes (CLI)", .serialized)
struct ExitCodeTests {
    @Test("a database that is down is 69 in every command that uses one")
    func databaseDownIs69Everywhere() async throws {
        let directory = try CLI.temporaryDirectory("exit")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let commands: [[String]] = [
            ["ingest", "Examples/sample/events.ndjson", "--store", "postgres", "--quiet", "--data-dir", directory],
            // --sink, the former name of --store, chooses the same store.
            ["ingest", "Examples/sample/events.ndjson", "--sink", "postgres", "--quiet", "--data-dir", directory],
            ["summary"], ["summary", "--exact", "--by", "event"], ["migrate"], ["doctor"],
        ]
        for command in commands {
            let flag = try await CLI.run(command + ["--database-url", CLI.downDatabase])
            #expect(flag.status == 69, "\(command) --database-url: \(flag.stderr)")
            let environment = try await CLI.run(command, environment: ["DATABASE_URL": CLI.downDatabase])
            #expect(environment.status == 69, "\(command) with DATABASE_URL: \(environment.stderr)")
        }
    }

    @Test("usage errors are 64: a bad time window, --by twice, a missing or directory input, bad limits, no registry")
    func usageErrors() async throws {
        let directory = try CLI.temporaryDirectory("exit")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let data = try await CLI.store([CLI.event()], in: directory)
        let cases: [([String], String)] = [
            (
                ["summary", "--since", "2026-11-22", "--until", "2026-11-21", "--data-dir", data],
                "is not after --since"
            ),
            (
                ["summary", "--since", "2026-11-22", "--until", "2026-11-22", "--data-dir", data],
                "is not after --since"
            ),
            (["summary", "--since", "1d", "--until", "2d", "--data-dir", data], "is not after --since"),
            (["summary", "--last", "99999999d", "--data-dir", data], "within 292 years"),  // was an overflow trap
            (["summary", "--since", "99999999h", "--data-dir", data], "within 292 years"),
            (["summary", "--last", "0d", "--data-dir", data], "above zero"),
            // A leading dash is the value's, not a flag ("Missing value for '--last'" before).
            (["summary", "--last", "-1d", "--data-dir", data], "--last \"-1d\": give a duration above zero"),
            (["summary", "--since", "-2d", "--data-dir", data], "--since \"-2d\": use RFC 3339"),
            (
                [
                    "keys", "add", "--keys", directory + "/keys.json", "--source", "app", "--registry",
                    directory + "/none",
                ],
                "not a directory"
            ),
            (["summary", "--by", "day", "--by", "event", "--data-dir", data], "--by given 2 times"),
            (["summary", "--limit", "0", "--data-dir", data], "--limit must be 1 or more"),
            // A negative number is the option's value, not an unknown flag ("Missing value" before).
            (["summary", "--limit", "-3", "--data-dir", data], "--limit must be 1 or more"),
            (["generate", "--events", "-5"], "--events must be 0 or more"),
            (["serve", "--port", "-1", "--allow-anonymous"], "--port must be 0 to 65535"),
            // Each limit named on its own ("the timeouts must be positive." before).
            (["serve", "--read-timeout", "0", "--allow-anonymous"], "--read-timeout 0.0: give a number of seconds"),
            (["serve", "--max-header-count", "-2", "--allow-anonymous"], "--max-header-count -2: must be at least 16"),
            (["serve", "--max-event-bytes", "10", "--allow-anonymous"], "--max-event-bytes 10: must be at least 64"),
            // Limits that would refuse every request or could never be reached.
            (
                ["serve", "--max-header-bytes", "10", "--allow-anonymous"],
                "--max-header-bytes 10: must be at least 1024"
            ),
            (
                ["serve", "--max-decompressed-bytes", "4096", "--allow-anonymous"],
                "--max-decompressed-bytes 4096 is below --max-request-bytes 512000"
            ),
            (
                ["serve", "--max-event-bytes", "9000000", "--allow-anonymous"],
                "--max-event-bytes 9000000 is above --max-decompressed-bytes 8388608"
            ),
            (["generate", "--users", "0"], "--users must be at least 1"),
            // Past these, a conversion overflowed and the process trapped (rc 132).
            (["serve", "--request-timeout", "1e300", "--allow-anonymous"], "--request-timeout 1e+300: give a number"),
            (["generate", "--days", "1000000"], "--days must be 1 to 36500"),
            (["ingest", "--max-event-bytes", "-1"], "--max-event-bytes must be at least 64"),
            (["ingest", directory + "/nope.ndjson"], "does not exist"),
            (["ingest", directory], "is a directory"),
            (["ingest", "--max-line-bytes", "1000", "--max-event-bytes", "2000"], "is below --max-event-bytes"),
            // swift-argument-parser printed the root help with exit 0 for any name after `help`.
            (["help", "nonexistent"], "unknown command 'nonexistent'"),
            (["help", "schema", "nonexistent"], "unknown command 'nonexistent'"),
        ]
        for (arguments, message) in cases {
            let result = try await CLI.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }

    @Test("episode-demo in file mode names the app-mode options it was given (the outbox caps were unused), 64")
    func demoAppOptionsNeedAppMode() async throws {
        let directory = try CLI.temporaryDirectory("demo-file")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = ["--visits", "1", "--data-dir", directory + "/data"]
        let one = try await ChildProcess("episode-demo", arguments: file + ["--max-outbox-bytes", "0"])
            .wait(timeout: .seconds(60))
        #expect(one.status == 64, "\(one.stderr)")
        #expect(one.stderr.contains("--max-outbox-bytes acts only in app mode"), "\(one.stderr)")
        let two = try await ChildProcess("episode-demo", arguments: file + ["--rate", "5", "--max-outbox-age", "9"])
            .wait(timeout: .seconds(60))
        #expect(two.stderr.contains("--rate, --max-outbox-age act only in app mode"), "\(two.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/data"), "nothing is created")
    }

    @Test("episode-demo refuses seconds and rates that overflowed a Duration (it trapped), with 64")
    func demoSecondsInRange() async throws {
        let directory = try CLI.temporaryDirectory("demo")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let app = ["--endpoint", "http://127.0.0.1:9", "--write-key", "k", "--outbox", directory + "/outbox"]
        let cases: [([String], String)] = [
            (["--batch-interval", "1e300"], "--batch-interval 1e+300: give seconds from 0.001 to 31536000"),
            (["--upload-interval", "1e-300"], "--upload-interval 1e-300: give seconds from 0.001"),
            (["--flush-timeout", "-1"], "--flush-timeout -1.0: give seconds from 0 to 31536000"),
            (["--session-timeout", "1e300"], "--session-timeout 1e+300: give seconds"),
            (["--max-outbox-age", "1e300"], "--max-outbox-age 1e+300: give seconds"),
            (["--rate", "1e-300"], "--rate 1e-300: give visits a second from 0.001 to 1000000"),
            (["--super-property", "nokey"], "--super-property \"nokey\": give KEY=VALUE"),
            (["--enrich", "=x"], "--enrich \"=x\": give KEY=VALUE"),
            (["--max-outbox-bytes", "0"], "--max-outbox-bytes 0: give at least"),
            (["--max-outbox-events", "0"], "--max-outbox-events 0: give at least 1"),
            (["--data-dir", directory + "/data"], "--data-dir is for the file store; in app mode"),
        ]
        for (arguments, message) in cases {
            let result = try await ChildProcess("episode-demo", arguments: app + arguments).wait(timeout: .seconds(60))
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory + "/outbox"), "nothing is created")
    }

    @Test(
        "tally serve on a port in use, an unknown host or another machine's address is 64 with the address, before it creates or warns anything"
    )
    func serveCannotListen() async throws {
        let directory = try CLI.temporaryDirectory("listen")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let held = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(held) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(held, socketAddress, length) == 0 && listen(held, 1) == 0
                    && getsockname(held, socketAddress, &length) == 0
            }
        }
        try #require(bound)
        let port = String(UInt16(bigEndian: address.sin_port))
        let serve = ["serve", "--allow-anonymous", "--data-dir", directory + "/data"]
        let inUse = try await CLI.run(serve + ["--port", port])
        #expect(inUse.status == 64, "\(inUse.stderr)")
        #expect(inUse.stderr.contains("cannot listen on 127.0.0.1:\(port): the address is in use"), "\(inUse.stderr)")
        let unknown = try await CLI.run(serve + ["--host", "999.1.1.1"])
        #expect(unknown.status == 64, "\(unknown.stderr)")
        #expect(unknown.stderr.contains("cannot listen on --host 999.1.1.1"), "\(unknown.stderr)")
        // 192.0.2.1 (TEST-NET-1) is no address of this machine.
        let elsewhere = try await CLI.run(serve + ["--host", "192.0.2.1"])
        #expect(elsewhere.status == 64, "\(elsewhere.stderr)")
        #expect(elsewhere.stderr.contains("not an address of this machine"), "\(elsewhere.stderr)")
        for result in [inUse, unknown, elsewhere] {
            #expect(!result.stderr.contains("--allow-anonymous"), "the error comes first: \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory + "/data"), "no data directory is left behind")
    }

    @Test("65 data, 66 no store or keys file, 73 cannot create; every code documented in --help")
    func otherCodes() async throws {
        let directory = try CLI.temporaryDirectory("exit")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let noStore = try await CLI.run(["summary", "--data-dir", directory + "/none"])
        #expect(noStore.status == 66)
        #expect(noStore.stderr.contains("no file store at \(directory)/none"))
        let garbage = directory + "/garbage.ndjson"
        try CLI.write(["not json", "still not json"], to: garbage)
        let nothingAccepted = try await CLI.run(["ingest", garbage, "--data-dir", directory + "/data", "--quiet"])
        #expect(nothingAccepted.status == 65, "\(nothingAccepted.stderr)")
        let file = directory + "/a-file"
        try "x".write(toFile: file, atomically: true, encoding: .utf8)
        let unwritable = try await CLI.run(["ingest", garbage, "--data-dir", file + "/data", "--quiet"])
        #expect(unwritable.status == 73, "\(unwritable.stderr)")
        let brokenRegistry = directory + "/registry"
        try FileManager.default.createDirectory(atPath: brokenRegistry, withIntermediateDirectories: true)
        try "{ not json".write(toFile: brokenRegistry + "/shop.json", atomically: true, encoding: .utf8)
        let registry = try await CLI.run([
            "ingest", garbage, "--registry", brokenRegistry, "--data-dir", directory + "/d",
        ])
        #expect(registry.status == 65, "a registry with problems is a data error: \(registry.stderr)")
        // No registry there: a missing input, 64 in every command (as for `keys add --registry`).
        for command in [
            ["ingest", garbage], ["serve", "--allow-anonymous"], ["status", "--data-dir", directory],
            ["schema", "lint"],
        ] {
            let missing = try await CLI.run(command + ["--registry", directory + "/no-registry"])
            #expect(missing.status == 64 && missing.stderr.contains("does not exist"), "\(command): \(missing.stderr)")
        }
        // An output under a regular file cannot be created: 73, as for the keys file below.
        let generated = try await CLI.run([
            "schema", "generate", "--swift", "--registry", "Examples/registry", "--output", file + "/out",
        ])
        #expect(generated.status == 73 && generated.stderr.contains("not a directory"), "\(generated.stderr)")
        // Keys files: missing is 66, not a keys file 65 (with the key that is wrong), unwritable 73,
        // each in the system's words rather than Foundation's "NSCocoaErrorDomain error 512".
        let noKeys = try await CLI.run(["keys", "list", "--keys", directory + "/none.json"])
        #expect(noKeys.status == 66 && noKeys.stderr.contains("tally keys add --keys"), "\(noKeys.stderr)")
        let wrongKeys = directory + "/wrong.json"
        try #"{"keys":[{"source":"app"}]}"#.write(toFile: wrongKeys, atomically: true, encoding: .utf8)
        let wrong = try await CLI.run(["keys", "list", "--keys", wrongKeys])
        #expect(wrong.status == 65 && wrong.stderr.contains(#"$.keys[0] has no "sha256""#), "\(wrong.stderr)")
        try #"{"keys":[{"sha256":"abc","source":"app"}]}"#.write(toFile: wrongKeys, atomically: true, encoding: .utf8)
        let badHash = try await CLI.run(["keys", "list", "--keys", wrongKeys])
        #expect(badHash.status == 65 && badHash.stderr.contains("$.keys[0].sha256: not a SHA-256"), "\(badHash.stderr)")
        // Not JSON at all: the line and column, which Foundation's decoder does not give.
        try "{\n  \"keys\": [\n    {\"source\": \"app\",}\n  ]\n}\n".write(
            toFile: wrongKeys,
            atomically: true,
            encoding: .utf8
        )
        let notJSON = try await CLI.run(["keys", "list", "--keys", wrongKeys])
        #expect(notJSON.status == 65 && notJSON.stderr.contains("line 3, column 22"), "\(notJSON.stderr)")
        // No keys yet: said, with what makes one (not an empty output).
        try #"{"keys":[]}"#.write(toFile: wrongKeys, atomically: true, encoding: .utf8)
        let empty = try await CLI.run(["keys", "list", "--keys", wrongKeys])
        #expect(empty.status == 0 && empty.stderr.contains("no keys in"), "\(empty.stderr)")
        // A relative --registry is stored absolute: `tally serve` would read it from the keys file's directory.
        let relative = try await CLI.run([
            "keys", "add", "--keys", directory + "/keys.json", "--source", "app", "--registry", "Examples/registry",
        ])
        #expect(relative.status == 0, "\(relative.stderr)")
        let listed = try await CLI.run(["keys", "list", "--keys", directory + "/keys.json"])
        let absolute = FileManager.default.currentDirectoryPath + "/Examples/registry"
        #expect(listed.stdout.contains("registry=\(absolute)"), "\(listed.stdout)")
        let unwritableKeys = try await CLI.run(["keys", "add", "--keys", file + "/keys.json", "--source", "app"])
        #expect(unwritableKeys.status == 73, "\(unwritableKeys.stderr)")
        #expect(unwritableKeys.stderr.contains("not a directory"), "\(unwritableKeys.stderr)")
        #expect(!unwritableKeys.stderr.contains("NSCocoaErrorDomain"), "\(unwritableKeys.stderr)")
        let help = try await CLI.run(["--help"])
        for code in ["64", "65", "66", "69", "73", "74", "75"] {
            #expect(help.stdout.contains(code), "tally --help documents \(code)")
        }
    }

    @Test("commands exit through the named sysexits constants, never a bare number")
    func namedConstantsOnly() throws {
        let sources = TestDatabase.repository + "/Sources/CLI/tally"
        let files = FileManager.default.enumerator(atPath: sources)?.compactMap { $0 as? String } ?? []
        var checked = 0
        for file in files where file.hasSuffix(".swift") && file != "ExitCode+Sysexits.swift" {
            let text = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
            #expect(text.firstRange(of: #/ExitCode\(\d+\)/#) == nil, "\(file) uses a bare exit code")
            checked += 1
        }
        #expect(checked > 10)
    }

    @Test("help names real commands: the root's and a subcommand's help, exit 0")
    func helpTopics() async throws {
        for topic in [["help"], ["help", "ingest"], ["help", "schema", "lint"], ["help", "keys"]] {
            let result = try await CLI.run(topic)
            #expect(result.status == 0, "\(topic): \(result.stderr)")
            #expect(result.stdout.contains("USAGE: tally"), "\(topic)")
        }
    }
}
