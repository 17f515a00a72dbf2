import Foundation
import TallyTestSupport
import Testing

/// `tally keys add|list|rotate|revoke` as an operator runs them: ids in the list, a rotated key
/// and its replacement, revoking by id or by the key, the help's examples, and the exit codes of
/// a key that is not there, a missing keys file and one that is not a keys file.
@Suite("tally keys (CLI)")
struct KeysCommandTests {
    /// The list's lines as [id: [field]].
    static func list(_ keys: String) async throws -> [String: [String]] {
        let result = try await CLI.run(["keys", "list", "--keys", keys])
        #expect(result.status == 0, "\(result.stderr)")
        var lines: [String: [String]] = [:]
        for line in result.stdout.split(separator: "\n") {
            let fields = line.split(separator: "\t").map(String.init)
            lines[fields[0]] = Array(fields.dropFirst())
        }
        return lines
    }

    @Test("add, rotate by id, revoke by the key itself: the list shows each key's id, status and successor")
    func lifecycle() async throws {
        let directory = try CLI.temporaryDirectory("keys")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keys = directory + "/keys.json"
        let added = try await CLI.run(["keys", "add", "--keys", keys, "--source", "ios-app", "--feature", "episode"])
        #expect(added.status == 0, "\(added.stderr)")
        let old = added.stdout.trimmingCharacters(in: .newlines)
        #expect(added.stderr.contains("systemctl reload tally-serve"))
        let first = try await Self.list(keys)
        let oldID = try #require(first.keys.first)
        #expect(oldID.count == 12)
        #expect(first[oldID]?.prefix(3) == ["active", "ios-app", "feature=episode"])
        #expect(first[oldID]?.contains { $0.hasPrefix("created_at=") } == true)
        #expect(!(try String(contentsOfFile: keys, encoding: .utf8)).contains(old), "the file has no key")

        let rotated = try await CLI.run(["keys", "rotate", "--keys", keys, oldID])
        #expect(rotated.status == 0, "\(rotated.stderr)")
        let new = rotated.stdout.trimmingCharacters(in: .newlines)
        #expect(new.count == 43 && new != old)
        #expect(rotated.stderr.contains("both are accepted until `tally keys revoke --keys \(keys) \(oldID)`"))
        let second = try await Self.list(keys)
        let newID = try #require(second.keys.first { $0 != oldID })
        #expect(second[oldID]?.prefix(2) == ["rotated", "ios-app"])
        #expect(second[oldID]?.contains("replaced_by=\(newID)") == true)
        #expect(second[newID]?.prefix(3) == ["active", "ios-app", "feature=episode"])

        let revoked = try await CLI.run(["keys", "revoke", "--keys", keys, old])
        #expect(revoked.status == 0, "\(revoked.stderr)")
        #expect(revoked.stderr.contains("revoked the key \(oldID) (ios-app)"))
        #expect(!revoked.stderr.contains(old), "the key is never echoed")
        let third = try await Self.list(keys)
        #expect(third[oldID]?.first == "revoked")
        #expect(third[oldID]?.contains { $0.hasPrefix("revoked_at=") } == true)
        #expect(third[newID]?.first == "active")
        let again = try await CLI.run(["keys", "revoke", "--keys", keys, String(oldID.prefix(8))])
        #expect(again.status == 0 && again.stderr.contains("already revoked"), "\(again.stderr)")
        let rotateRevoked = try await CLI.run(["keys", "rotate", "--keys", keys, oldID])
        #expect(rotateRevoked.status == 64, "\(rotateRevoked.stderr)")
        #expect(rotateRevoked.stderr.contains("is revoked: `tally keys add --source ios-app` makes a new one"))
        let last = try await CLI.run(["keys", "revoke", "--keys", keys, newID])
        #expect(last.status == 0 && last.stderr.contains("tally serve will refuse every request"), "\(last.stderr)")
    }

    @Test("an unknown id, a missing keys file, one that is not a keys file: 64, 66, 65 with what to do")
    func badInput() async throws {
        let directory = try CLI.temporaryDirectory("keys-bad")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keys = directory + "/keys.json"
        await #expect(try CLI.run(["keys", "add", "--keys", keys, "--source", "app"]).status == 0)
        for command in ["revoke", "rotate"] {
            let unknown = try await CLI.run(["keys", command, "--keys", keys, "0123456789ab"])
            #expect(unknown.status == 64, "\(unknown.stderr)")
            #expect(unknown.stderr.contains("no key has the id 0123456789ab (`tally keys list` shows the ids)"))
            let missing = try await CLI.run(["keys", command, "--keys", directory + "/none.json", "0123456789ab"])
            #expect(missing.status == 66, "\(missing.stderr)")
            #expect(missing.stderr.contains("no keys file at \(directory)/none.json"))
            try "{\"keys\": [".write(toFile: directory + "/broken.json", atomically: true, encoding: .utf8)
            let broken = try await CLI.run(["keys", command, "--keys", directory + "/broken.json", "0123456789ab"])
            #expect(broken.status == 65, "\(broken.stderr)")
            #expect(broken.stderr.contains("cannot read the keys file"))
            let noArgument = try await CLI.run(["keys", command, "--keys", keys])
            #expect(noArgument.status == 64, "\(noArgument.stderr)")
        }
        let secret = "Zx9" + String(repeating: "q", count: 40)
        let byKey = try await CLI.run(["keys", "revoke", "--keys", keys, secret])
        #expect(byKey.status == 64 && !byKey.stderr.contains(secret), "\(byKey.stderr)")
    }

    @Test("a keys file written before statuses: listed as active, and revoked in place, its mode kept")
    func olderFile() async throws {
        let directory = try CLI.temporaryDirectory("keys-old")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keys = directory + "/keys.json"
        // SHA-256 of "old-key".
        let hash = "762c08fc17a1cc5f00d248f8b50f2f2f4d17ff2934ac31e64deacb3f5bb3f2ec"
        try #"{"keys":[{"sha256":"\#(hash)","source":"ios-app"}]}"#.write(
            toFile: keys,
            atomically: true,
            encoding: .utf8
        )
        chmod(keys, 0o640)
        await #expect(try Self.list(keys)[String(hash.prefix(12))] == ["active", "ios-app"])
        let revoked = try await CLI.run(["keys", "revoke", "--keys", keys, String(hash.prefix(12))])
        #expect(revoked.status == 0, "\(revoked.stderr)")
        await #expect(try Self.list(keys)[String(hash.prefix(12))]?.first == "revoked")
        let attributes = try FileManager.default.attributesOfItem(atPath: keys)
        #expect((attributes[.posixPermissions] as? Int) == 0o640)
    }

    @Test("--help of rotate and revoke: what KEY is, examples, the reload, exit codes")
    func help() async throws {
        for command in ["rotate", "revoke"] {
            let help = try await CLI.run(["keys", command, "--help"])
            #expect(help.status == 0)
            for text in [
                "Examples:", "tally keys \(command) --keys /etc/tally/keys.json 3f9a2c81d0e4", "tally keys list",
                "systemctl reload tally-serve", "64", "65", "66", "73",
            ] {
                #expect(help.stdout.contains(text), "tally keys \(command) --help: \(text)")
            }
        }
        let keys = try await CLI.run(["keys", "--help"])
        #expect(keys.stdout.contains("SIGHUP") && keys.stdout.contains("rotate") && keys.stdout.contains("revoke"))
    }
}
