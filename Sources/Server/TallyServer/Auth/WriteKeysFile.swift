import Foundation
import TallyCore

/// The keys file: which write keys may send, as hashes only.
///
/// `{"keys":[{"sha256":"<hex>","source":"ios-app","feature":"episode","registry":"plans/","status":"active"}]}`.
/// A key itself is printed once when it is made (`tally keys add`, `tally keys rotate`) and never
/// stored: the file holds its SHA-256, so reading the file gives nobody a key. Each entry is named
/// by an id derived from its hash (``Entry/id``).
public struct WriteKeysFile: Sendable, Hashable, Codable {
    /// The keys.
    public var keys: [Entry]

    /// A file with `keys`.
    public init(keys: [Entry] = []) {
        self.keys = keys
    }

    /// Reads the file at `path`.
    public static func load(_ path: String) throws -> WriteKeysFile {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        // Foundation's decoder says only that the text is not JSON; tally's parser says where.
        let syntax = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> DecodingError.Context? in
            let bytes = raw.bindMemory(to: UInt8.self)
            var parser = JSONParser(bytes: bytes)
            do throws(JSONError) {
                _ = try parser.parseDocument()
                return nil
            } catch {
                let place = "\(error) (\(JSONTextPosition(of: error.offset, in: bytes)))"
                return DecodingError.Context(codingPath: [], debugDescription: place, underlyingError: error)
            }
        }
        if let syntax { throw DecodingError.dataCorrupted(syntax) }
        return try JSONDecoder().decode(WriteKeysFile.self, from: data)
    }

    /// Writes the file at `path`, replacing it atomically and durably (a key printed once must not
    /// be lost to a crash right after).
    ///
    /// A new file gets mode 0600. A file that exists keeps its mode, owner and group: the deployed
    /// one is `root:tally` 0640, written by root and read by the service, which could no longer
    /// read a replacement owned by root alone.
    /// - Throws: ``IOError`` naming the failing call and path.
    public func save(_ path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = Array(try encoder.encode(self) + Data("\n".utf8))
        var existing = stat()
        let exists = stat(path, &existing) == 0
        let temporary = path + ".tmp-\(getpid())"
        let descriptor = systemOpen(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw IOError(.open, path: temporary, errno: errno) }
        do {
            defer { close(descriptor) }
            try FileDescriptorWriter.writeAll(data, to: descriptor, path: temporary)
            if exists {
                if fchown(descriptor, existing.st_uid, existing.st_gid) != 0 {
                    throw IOError(.chown, path: temporary, errno: errno)
                }
                if fchmod(descriptor, existing.st_mode & 0o7777) != 0 {
                    throw IOError(.chmod, path: temporary, errno: errno)
                }
            }
            if fsync(descriptor) != 0 { throw IOError(.fsync, path: temporary, errno: errno) }
            if rename(temporary, path) != 0 { throw IOError(.rename, path: path, errno: errno) }
        } catch {
            unlink(temporary)
            throw error
        }
        // The rename itself is durable once the directory is.
        let directory = (path as NSString).deletingLastPathComponent
        let directoryDescriptor = systemOpen(directory.isEmpty ? "." : directory, O_RDONLY | O_CLOEXEC)
        guard directoryDescriptor >= 0 else { throw IOError(.open, path: directory, errno: errno) }
        defer { close(directoryDescriptor) }
        if fsync(directoryDescriptor) != 0 { throw IOError(.fsync, path: directory, errno: errno) }
    }

    /// The length of a key's ``Entry/id``.
    static let idLength = 12

    /// Whether `text` is lowercase hex digits only.
    static func isHex(_ text: some StringProtocol) -> Bool {
        text.utf8.allSatisfy {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
        }
    }

    /// A new random key: 43 letters and digits from the system's generator (256 bits). Only
    /// letters and digits, so that a key is one word anywhere it goes: a command line (base64's
    /// `-` first made it read as an option), a URL path, a Basic user name.
    public static func makeKey() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        var generator = SystemRandomNumberGenerator()
        let characters = (0..<43).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
        return String(decoding: characters, as: UTF8.self)
    }

    /// The SHA-256 of `key`'s UTF-8 bytes, lowercase hex.
    public static func hash(_ key: some StringProtocol) -> String {
        hash(bytes: Array(key.utf8))
    }

    // TallyCore's SHA-256 (written for the app-side library, which depends on nothing), not
    // swift-crypto's: one hash per request, ~1.2 µs for a key, and swift-crypto's BoringSSL was a C
    // build of ~1.5 min in each of the test suite's two builds (debug and ThreadSanitizer).
    static func hash(bytes: some Collection<UInt8>) -> String {
        SHA256.hex(SHA256.digest(bytes))
    }
}
