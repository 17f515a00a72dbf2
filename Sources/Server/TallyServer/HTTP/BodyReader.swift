import HTTPTypes
import Hummingbird
import NIOCore
import TallyCompression

/// Reads a request body under the collector's limits: at most ``Limits/maxRequestBytes`` as sent
/// (refused from `Content-Length` before reading, or as soon as the stream passes it), inflated
/// chunk by chunk when compressed (`Content-Encoding: gzip|deflate`, or gzip's magic bytes), so
/// neither a large body nor a bomb is ever held whole.
struct BodyReader {
    /// The caps.
    struct Limits: Sendable, Hashable {
        var maxRequestBytes: Int
        var inflate: Inflater.Limits
    }

    let limits: Limits

    /// The body's bytes, inflated.
    /// - Throws: ``CollectorError`` 413 (too large as sent or inflated), 415 (unknown encoding),
    ///   400 (corrupt or truncated compressed data).
    func read(_ request: Request) async throws -> [UInt8] {
        let encoding = try Self.encoding(request.headers)
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limits.maxRequestBytes {
            throw tooLarge(length)
        }
        var sent = 0
        var raw: [UInt8] = []
        var inflater: Inflater?
        var inflated: [UInt8] = []
        var decided = encoding != nil
        if let encoding { inflater = try makeInflater(encoding) }
        var iterator = request.body.makeAsyncIterator()
        while let buffer = try await Self.next(&iterator) {
            sent += buffer.readableBytes
            if sent > limits.maxRequestBytes { throw tooLarge(sent) }
            if !decided {
                // No Content-Encoding: gzip is told by its magic bytes (PostHog sends it so).
                raw.append(contentsOf: buffer.readableBytesView)
                guard raw.count >= 2 else { continue }
                decided = true
                if Inflater.isGzip(raw) {
                    inflater = try makeInflater(.gzip)
                    let held = raw
                    raw = []
                    try feed(inflater!, held, into: &inflated)
                }
                continue
            }
            if let inflater {
                try buffer.withUnsafeReadableBytes { bytes in try feed(inflater, bytes, into: &inflated) }
            } else {
                raw.append(contentsOf: buffer.readableBytesView)
            }
        }
        guard let inflater else { return raw }
        do {
            try inflater.finish()
        } catch {
            throw CollectorError(.badRequest, .invalidEncoding, error.message)
        }
        return inflated
    }

    /// The next chunk of the body; a body that cannot be read (the connection half-closed in the
    /// middle, a broken chunked encoding) is the client's fault: 400, not 500.
    private static func next(_ iterator: inout RequestBody.AsyncIterator) async throws -> ByteBuffer? {
        do {
            return try await iterator.next()
        } catch {
            throw CollectorError(
                .badRequest,
                .invalidBody,
                "the body could not be read: it ended early or its chunked encoding is broken"
            )
        }
    }

    private func tooLarge(_ bytes: Int) -> CollectorError {
        CollectorError(
            .contentTooLarge,
            .requestTooLarge,
            "the body is over the \(limits.maxRequestBytes)-byte request limit (\(bytes) bytes or more)"
        )
    }

    private func makeInflater(_ format: Inflater.Format) throws -> Inflater {
        do {
            return try Inflater(format, limits: limits.inflate)
        } catch {
            throw CollectorError(.internalServerError, .invalidEncoding, error.message)
        }
    }

    private func feed(_ inflater: Inflater, _ bytes: [UInt8], into output: inout [UInt8]) throws {
        try bytes.withUnsafeBytes { raw in try feed(inflater, raw, into: &output) }
    }

    private func feed(_ inflater: Inflater, _ bytes: UnsafeRawBufferPointer, into output: inout [UInt8]) throws {
        do {
            try inflater.feed(bytes, into: &output)
        } catch  where error.code == .tooLarge || error.code == .ratioExceeded {
            throw CollectorError(.contentTooLarge, .decompressedTooLarge, error.message)
        } catch {
            throw CollectorError(.badRequest, .invalidEncoding, error.message)
        }
    }

    /// The body's declared encoding: nil for none or `identity`.
    /// - Throws: ``CollectorError`` 415 for anything but gzip, deflate and identity.
    static func encoding(_ fields: HTTPFields) throws -> Inflater.Format? {
        guard let value = fields[.contentEncoding]?.trimmingCharacters(in: .whitespaces).lowercased(),
            !value.isEmpty
        else { return nil }
        switch value {
        case "gzip", "x-gzip": return .gzip
        case "deflate": return .deflate
        case "identity": return nil
        default:
            throw CollectorError(
                .unsupportedMediaType,
                .unsupportedEncoding,
                "Content-Encoding \(value.prefix(40)) is not supported (gzip, deflate or none)"
            )
        }
    }
}
