import Foundation
import TallyCore
import TallySchema
import Testing

@testable import TallyServer

@Suite("write keys")
struct WriteKeysFileTests {
    @Test("a new key is 43 letters and digits (one word on a command line, in a URL, as a Basic user), never twice")
    func keysAreAlphanumeric() {
        let keys = (0..<2_000).map { _ in WriteKeysFile.makeKey() }
        for key in keys {
            #expect(key.utf8.count == 43)
            #expect(
                key.utf8.allSatisfy {
                    (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0)
                        || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                }
            )
        }
        #expect(Set(keys).count == keys.count)
    }

    static func temporaryFile() throws -> String {
        let directory = NSTemporaryDirectory() + "tally-keys-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory + "/keys.json"
    }

    static func table(_ file: WriteKeysFile) -> WriteKeyTable {
        WriteKeyTable(
            entries: file.keys,
            validators: [:],
            fallback: EventValidator(registry: nil, limits: ValidationLimits()),
            allowAnonymous: false
        )
    }

    static func accepts(_ file: WriteKeysFile, _ key: String) -> Bool {
        table(file).sender(key: Array(key.utf8)) != nil
    }

    @Test("a keys file written before statuses reads as active keys with ids, and is written back with them")
    func olderFiles() throws {
        let path = try Self.temporaryFile()
        let hash = WriteKeysFile.hash("old-key")
        try #"{"keys":[{"sha256":"\#(hash.uppercased())","source":"ios-app","feature":"episode"}]}"#.write(
            toFile: path,
            atomically: true,
            encoding: .utf8
        )
        var file = try WriteKeysFile.load(path)
        #expect(file.keys.map(\.status) == [.active])
        #expect(file.keys.map(\.id) == [String(hash.prefix(12))])
        #expect(Self.accepts(file, "old-key"))
        _ = try file.revoke("old-key")
        try file.save(path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains(#""status" : "revoked""#) && text.contains(#""revoked_at" : "#), "\(text)")
        #expect(try WriteKeysFile.load(path) == file)
    }

    @Test("a status other than active, rotated or revoked is refused with its path")
    func unknownStatus() throws {
        let path = try Self.temporaryFile()
        let hash = WriteKeysFile.hash("k")
        try #"{"keys":[{"sha256":"\#(hash)","source":"a","status":"paused"}]}"#.write(
            toFile: path,
            atomically: true,
            encoding: .utf8
        )
        let error = #expect(throws: DecodingError.self) { try WriteKeysFile.load(path) }
        guard case .dataCorrupted(let context) = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["keys", "Index 0", "status"])
        #expect(context.debugDescription.contains("unknown status \"paused\" (active, rotated or revoked)"))
    }

    @Test("revoke by id, by a unique prefix of it or by the key itself; a revoked key is refused; twice is once")
    func revoke() throws {
        var file = WriteKeysFile()
        let (first, firstEntry) = file.add(source: "ios-app")
        let (second, secondEntry) = file.add(source: "web")
        let (third, thirdEntry) = file.add(source: "backend")
        #expect(Self.accepts(file, first) && Self.accepts(file, second) && Self.accepts(file, third))
        #expect(try file.revoke(firstEntry.id).status == .active)
        #expect(try file.revoke(String(secondEntry.id.prefix(8)).uppercased()).status == .active)
        #expect(try file.revoke(third).id == thirdEntry.id)
        #expect(file.keys.map(\.status) == [.revoked, .revoked, .revoked])
        #expect(file.keys.allSatisfy { $0.revokedAt != nil })
        #expect(!Self.accepts(file, first) && !Self.accepts(file, second) && !Self.accepts(file, third))
        #expect(Self.table(file).count == 0)
        let at = file.keys[0].revokedAt
        #expect(try file.revoke(firstEntry.id).status == .revoked, "already revoked: the entry as it was")
        #expect(file.keys[0].revokedAt == at)
    }

    @Test("an unknown key or id, a short prefix, an ambiguous prefix: errors that name no key")
    func unknownReferences() throws {
        let file = WriteKeysFile(keys: [
            .init(sha256: "abcdef01" + String(repeating: "0", count: 56), source: "a"),
            .init(sha256: "abcdef02" + String(repeating: "0", count: 56), source: "b"),
        ])
        #expect(try file.index(of: "abcdef01") == 0)
        #expect(try file.index(of: "ABCDEF02") == 1)
        let secret = WriteKeysFile.makeKey()
        for (reference, code, text) in [
            ("abcdef", WriteKeysError.Code.ambiguousID, "2 keys have ids starting with abcdef"),
            ("abcdef03", .unknownKey, "no key has the id abcdef03"),
            ("abc", .unknownKey, "give a key's id as `tally keys list` shows it"),
            (secret, .unknownKey, "no key is the 43-character text given"),
        ] {
            let error = #expect(throws: WriteKeysError.self) { try file.index(of: reference) }
            #expect(error?.code == code, "\(reference)")
            #expect(error?.message.contains(text) == true, "\(error?.message ?? "")")
            #expect(error?.message.contains(secret) == false)
        }
    }

    @Test("rotate: a new key with the old one's settings; both accepted until the old one is revoked")
    func rotate() throws {
        var file = WriteKeysFile()
        let (old, oldEntry) = file.add(source: "ios-app", feature: "episode", registry: "/plans")
        let (new, newEntry, before) = try file.rotate(oldEntry.id)
        #expect(before == oldEntry)
        #expect(new != old && newEntry.id != oldEntry.id)
        #expect(newEntry.source == "ios-app" && newEntry.feature == "episode" && newEntry.registry == "/plans")
        #expect(newEntry.status == .active && newEntry.createdAt != nil)
        #expect(file.keys[0].status == .rotated && file.keys[0].replacedBy == newEntry.id)
        #expect(file.keys[0].rotatedAt != nil)
        let table = Self.table(file)
        #expect(table.sender(key: Array(old.utf8))?.rotatedKeyID == oldEntry.id)
        #expect(table.sender(key: Array(new.utf8))?.rotatedKeyID == nil)
        #expect(table.count == 2 && table.rotatedCount == 1)
        _ = try file.revoke(old)
        #expect(!Self.accepts(file, old) && Self.accepts(file, new))
        let error = #expect(throws: WriteKeysError.self) { try file.rotate(oldEntry.id) }
        #expect(error?.code == .revokedKey)
    }

    @Test("save: a new file is 0600; an existing one keeps its mode, owner and group")
    func saveKeepsModeAndOwner() throws {
        let path = try Self.temporaryFile()
        var file = WriteKeysFile()
        _ = file.add(source: "a")
        try file.save(path)
        #expect(try Self.mode(path) == 0o600)
        chmod(path, 0o640)
        // The deployed file is root:tally; as root, another owner and group must survive too.
        let owner: (uid_t, gid_t) = getuid() == 0 ? (65_534, 65_534) : (getuid(), getgid())
        #expect(chown(path, owner.0, owner.1) == 0)
        _ = file.add(source: "b")
        try file.save(path)
        #expect(try Self.mode(path) == 0o640)
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_uid == owner.0 && status.st_gid == owner.1)
        #expect(try WriteKeysFile.load(path).keys.count == 2)
        let leftovers = try FileManager.default.contentsOfDirectory(
            atPath: (path as NSString).deletingLastPathComponent
        )
        #expect(leftovers == ["keys.json"], "no temporary file left")
    }

    static func mode(_ path: String) throws -> mode_t {
        var status = stat()
        guard stat(path, &status) == 0 else { throw IOError(.stat, path: path, errno: errno) }
        return status.st_mode & 0o7777
    }
}
