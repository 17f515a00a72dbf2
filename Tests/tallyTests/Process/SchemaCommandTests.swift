import Foundation
import TallyTestSupport
import Testing

/// `tally schema …` as a user runs it: exit codes, messages, files named.
@Suite("tally schema (CLI)")
struct SchemaCommandTests {
    static var repository: String { ConformanceData.repositoryRoot!.path }

    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        let child = try ChildProcess("tally", arguments: arguments, environment: environment)
        return await child.wait()
    }

    static func temporaryRegistry(_ files: [String: String]) throws -> String {
        let directory = NSTemporaryDirectory() + "tally-cli-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (name, text) in files { try text.write(toFile: "\(directory)/\(name)", atomically: true, encoding: .utf8) }
        return directory
    }

    static func plan(_ properties: String, version: String = "1-0-0") -> String {
        #"{"feature": "shop", "description": "d", "screens": ["cart"], "events": [{"name": "cart_viewed", "version": "\#(version)", "description": "d", "properties": \#(properties)}]}"#
    }

    @Test("lint: the Examples registry passes; a broken one lists every problem with file and path, exit 1")
    func lint() async throws {
        let good = try await Self.run(["schema", "lint", Self.repository + "/Examples/registry"])
        #expect(good.status == 0)
        #expect(good.stdout.hasPrefix("ok: 3 plans, 10 events"))

        let broken = try Self.temporaryRegistry([
            "shop.json": Self.plan(
                #"{"type":"object","properties":{"n":{"type":"string","itemz":{}},"m":{"type":7}}}"#
            ),
            "bad.json": "{ not json",
        ])
        defer { try? FileManager.default.removeItem(atPath: broken) }
        let result = try await Self.run(["schema", "lint", broken])
        #expect(result.status == 1)
        #expect(result.stdout.contains("\(broken)/bad.json: $: not JSON"))
        #expect(result.stdout.contains("\(broken)/shop.json: $.events[0].properties.properties.n.itemz"))
        #expect(result.stdout.contains("\(broken)/shop.json: $.events[0].properties.properties.m.type"))
        #expect(result.stderr.contains("3 problems"))
    }

    @Test("lint without a registry explains what to do (usage error, exit 64); TALLY_REGISTRY works")
    func registryFromEnvironment() async throws {
        let missing = try await Self.run(["schema", "lint"], environment: ["TALLY_REGISTRY": ""])
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("--registry DIR or set TALLY_REGISTRY"))
        let fromEnvironment = try await Self.run(
            ["schema", "lint"],
            environment: ["TALLY_REGISTRY": Self.repository + "/Examples/registry"]
        )
        #expect(fromEnvironment.status == 0)
    }

    @Test("diff: a required property added under an ADDITION bump fails with the reason")
    func diff() async throws {
        let base = #"{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}"#
        let added =
            #"{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["b"],"additionalProperties":false}"#
        let old = try Self.temporaryRegistry(["shop.json": Self.plan(base)])
        let new = try Self.temporaryRegistry([
            "shop.json": Self.plan(base).replacingOccurrences(
                of: "]}",
                with: #", {"name": "cart_viewed", "version": "1-0-1", "description": "d", "properties": \#(added)}]}"#
            )
        ])
        defer {
            try? FileManager.default.removeItem(atPath: old)
            try? FileManager.default.removeItem(atPath: new)
        }
        let result = try await Self.run(["schema", "diff", old, new])
        #expect(result.status == 1)
        #expect(result.stdout.contains("cart_viewed 1-0-0 → 1-0-1: needs MODEL"))
        #expect(result.stdout.contains("MODEL: required property b added"))
        await #expect(try Self.run(["schema", "diff", old, old]).stdout == "no changes\n")
    }

    @Test("show prints the effective schema; an unknown event says so, exit 1")
    func show() async throws {
        let registry = Self.repository + "/Examples/registry"
        let shown = try await Self.run(["schema", "show", "episode_detail_play_tapped", "--registry", registry])
        #expect(shown.status == 0)
        #expect(shown.stdout.contains("version:     1-0-1  (registered: 1-0-0, 1-0-1)"))
        #expect(shown.stdout.contains("\"player\""))
        let unknown = try await Self.run(["schema", "show", "episode_list", "--registry", registry])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("did you mean"))
        let badVersion = try await Self.run([
            "schema", "show", "episode_list_viewed", "--version", "1.0", "--registry", registry,
        ])
        #expect(badVersion.status == 64)
    }

    @Test("import: names kept as sent; nothing imported and something refused is exit 1")
    func importExitCode() async throws {
        let directory = try Self.temporaryRegistry([
            "pages.json": #"{"rules": [{"type": "PAGE", "key": "Home", "version": 1, "jsonSchema": {}}]}"#,
            "plan.json": #"""
            {"rules": [{"type": "TRACK", "key": "Order Completed", "version": 2, "jsonSchema": {"properties": {
              "properties": {"type": "object", "properties": {"order_id": {"type": "string"}}}}}}]}
            """#,
        ])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let refused = try await Self.run([
            "schema", "import", "--from", "segment", directory + "/pages.json", "--dry-run",
        ])
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("refused   \(directory)/pages.json $.rules[0]: \"Home\": page rules"))
        #expect(refused.stdout.contains("imported 0, refused 1"))
        let imported = try await Self.run([
            "schema", "import", "--from", "segment", directory + "/plan.json", "--feature", "shop",
            "--output", directory + "/plans",
        ])
        #expect(imported.status == 0)
        #expect(imported.stdout.contains("imported 1, refused 0; 1 plan written"))
        let plan = try String(contentsOfFile: directory + "/plans/shop.json", encoding: .utf8)
        #expect(plan.contains(#""name": "Order Completed""#) && plan.contains(#""version": "2-0-0""#))
        await #expect(try Self.run(["schema", "lint", directory + "/plans"]).status == 0)
    }

    @Test("--help and --version work for every command")
    func help() async throws {
        for command in [
            [], ["schema"], ["schema", "lint"], ["schema", "show"], ["schema", "diff"], ["schema", "import"],
        ] {
            let result = try await Self.run(command + ["--help"])
            #expect(result.status == 0, "\(command)")
            #expect(result.stdout.contains("USAGE"), "\(command)")
        }
        await #expect(try Self.run(["--version"]).stdout.hasPrefix("0."))
    }
}
