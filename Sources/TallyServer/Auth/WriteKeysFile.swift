import Foundation
import TallyCore

/// The keys file: which write keys may send, as hashes only.
///
/// `{"keys":[{"sha256":"<hex>","source":"ios-app","feature":"episode","registry":"plans/"}]}`.
/// A key itself is printed once when it is made (`tally keys add`) and never stored: the file
/// holds its SHA-256, so reading the file gives nobody a key.
public struct WriteKeysFile: Sendable, Hashable, Codable {
    /// One key.
    public struct Entry: Sendable, Hashable, Codable {
        /// The key's SHA-256, lowercase hex.
        public var sha256: String
        /// The source its events come from (`ios-app`).
        public var source: String
        /// The feature of events that name none and no plan claims.
        public var feature: String?
        /// A registry directory whose plans this key's events are validated against (else the
        /// server's `--registry`).
        public var registry: String?

        /// An entry.
        public init(sha256: String, source: String, feature: String? = nil, registry: String? = nil) {
            self.sha256 = sha256
            self.source = source
            self.feature = feature
            self.registry = registry
        }

        private enum CodingKeys: String, CodingKey {
            case sha256, source, feature, registry
        }

        /// Refuses a `sha256` that is not 64 hex digits (a hand-edited file; such a key could never
        /// match), and reads upper-case hex as lower-case.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let sha256 = try container.decode(String.self, forKey: .sha256).lowercased()
            guard sha256.utf8.count == 64,
                sha256.utf8.allSatisfy({
                    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                        || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
                })
            else {
                throw DecodingError.dataCorruptedError(
                    forKey: .sha256,
                    in: container,
                    debugDescription: "not a SHA-256 (64 hex digits); `tally keys add` writes one"
                )
            }
            self.sha256 = sha256
            self.source = try container.decode(String.self, forKey: .source)
            self.feature = try container.decodeIfPresent(String.self, forKey: .feature)
            self.registry = try container.decodeIfPresent(String.self, forKey: .registry)
        }
    }

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

    /// Writes the file at `path` (created with mode 0600 when missing; replaced atomically and
    /// made durable: a key printed once must not be lost to a crash right after).
    /// - Throws: ``IOError`` naming the failing call and path.
    public func save(_ path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = Array(try encoder.encode(self) + Data("\n".utf8))
        let temporary = path + ".tmp-\(getpid())"
        let descriptor = systemOpen(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw IOError(.open, path: temporary, errno: errno) }
        do {
            defer { close(descriptor) }
            try FileDescriptorWriter.writeAll(data, to: descriptor, path: temporary)
            if fsync(descriptor) != 0 { throw IOError(.fsync, path: temporary, errno: errno) }
            if rename(temporary, path) != 0 { throw IOError(.rename, path: path, errno: errno) }
        } catch {
            unlink(temporary)
            throw error
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
