import CLibPQ

extension PostgresConnection {
    /// Runs `COPY (query) TO STDOUT (FORMAT binary)` and hands its rows to `body` in chunks of about
    /// `chunkBytes`, each holding whole rows in COPY's binary tuple format (the header and the
    /// trailer removed): read them with ``CopyBinaryCursor``. The server streams while `body`
    /// works, so its scan and the caller's work overlap. COPY takes no parameters: a caller binds
    /// its values beforehand (`SELECT set_config('tally.x', $1, true)`) and the query reads them
    /// once, in an uncorrelated subquery (`(SELECT current_setting('tally.x')::timestamptz)`).
    package func copyOut(
        _ sql: String,
        chunkBytes: Int = 1 << 20,
        _ body: (UnsafeRawBufferPointer) throws -> Void
    ) async throws {
        try await run { connection in try connection.startCopyOut(sql) }
        var header = true
        do {
            while true {
                let chunk = try await run { connection in try connection.readCopyOut(limit: chunkBytes) }
                guard var data = chunk.data else { break }
                if header {
                    header = false
                    data = try Self.droppingHeader(data)
                }
                if chunk.ended, data.count >= 2, data[data.count - 2] == 0xFF, data[data.count - 1] == 0xFF {
                    data.removeLast(2)
                }
                try data.withUnsafeBytes { try body($0) }
                if chunk.ended { break }
            }
        } catch {
            // The rest of the stream is read and dropped, so the connection stays usable.
            _ = try? await run { connection in
                while try connection.readCopyOut(limit: 1 << 24).ended == false {}
            }
            throw error
        }
    }

    /// The binary COPY header: an 11-byte signature, 32-bit flags, and an extension area.
    private static func droppingHeader(_ data: [UInt8]) throws -> [UInt8] {
        let signature: [UInt8] = [0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00]
        guard data.count >= 19, Array(data[0..<11]) == signature else {
            throw PostgresError(.copy, message: "COPY TO STDOUT did not start with the binary header")
        }
        let extensionLength = Int(data[15]) << 24 | Int(data[16]) << 16 | Int(data[17]) << 8 | Int(data[18])
        return Array(data[(19 + extensionLength)...])
    }

    func startCopyOut(_ sql: String) throws {
        let connection = try handle()
        let start = PQexec(connection, sql)
        defer { PQclear(start) }
        guard PQresultStatus(start) == PGRES_COPY_OUT else {
            try check(start, connection)
            throw PostgresError(.copy, message: "COPY TO STDOUT did not start", secret: nil)
        }
    }

    /// The next messages of a COPY TO STDOUT, up to about `limit` bytes; `ended` once the COPY is
    /// over (its result checked).
    func readCopyOut(limit: Int) throws -> (data: [UInt8]?, ended: Bool) {
        let connection = try handle()
        var data: [UInt8] = []
        data.reserveCapacity(limit + 65_536)
        while data.count < limit {
            var buffer: UnsafeMutablePointer<CChar>?
            let length = PQgetCopyData(connection, &buffer, 0)
            if length > 0, let buffer {
                buffer.withMemoryRebound(to: UInt8.self, capacity: Int(length)) { bytes in
                    data.append(contentsOf: UnsafeBufferPointer(start: bytes, count: Int(length)))
                }
                PQfreemem(buffer)
                continue
            }
            if length == -2 {
                throw PostgresError(.copy, message: String(cString: PQerrorMessage(connection)), secret: nil)
            }
            // -1: the COPY is over; its result tells whether it succeeded.
            while let result = PQgetResult(connection) {
                defer { PQclear(result) }
                try check(result, connection)
            }
            return (data.isEmpty ? nil : data, true)
        }
        return (data, false)
    }
}

/// Reads COPY's binary tuple format: per row a 16-bit field count, then per field a 32-bit length
/// (-1: NULL) and its bytes, every number big-endian.
package struct CopyBinaryCursor {
    package let bytes: UnsafeRawBufferPointer
    package var offset = 0

    package init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    package var atEnd: Bool { offset >= bytes.count }

    /// Starts a row: its field count.
    package mutating func row() -> Int {
        defer { offset += 2 }
        return Int(Int16(bitPattern: UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self))))
    }

    /// The next field's bytes, nil for NULL.
    package mutating func field() -> UnsafeRawBufferPointer? {
        let length = Int(Int32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)))
        offset += 4
        guard length >= 0 else { return nil }
        defer { offset += length }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length])
    }

    /// The next field as a big-endian integer of its own width (2, 4 or 8 bytes; NULL: nil).
    package mutating func integer() -> Int64? {
        guard let field = field() else { return nil }
        switch field.count {
        case 2: return Int64(Int16(bigEndian: field.loadUnaligned(as: Int16.self)))
        case 4: return Int64(Int32(bigEndian: field.loadUnaligned(as: Int32.self)))
        default: return Int64(bigEndian: field.loadUnaligned(as: Int64.self))
        }
    }

    /// A `uuid` field as its two halves.
    package mutating func uuid() -> (high: UInt64, low: UInt64)? {
        guard let field = field(), field.count == 16 else { return nil }
        return (
            UInt64(bigEndian: field.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
            UInt64(bigEndian: field.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        )
    }
}

extension CopyBinaryCursor {
    /// Reads a one-dimensional array in its binary format (dimensions, a null flag, the element
    /// type, then per dimension its length and lower bound, then each element as a field), the
    /// cursor being over the array's own bytes; `body` gets each element (nil: NULL).
    package mutating func forEachArrayElement(_ body: (UnsafeRawBufferPointer?) throws -> Void) rethrows {
        guard bytes.count >= 12 else { return }
        let dimensions = Int(Int32(bigEndian: bytes.loadUnaligned(fromByteOffset: 0, as: Int32.self)))
        offset = 12
        guard dimensions == 1 else { return }  // 0: an empty array
        let count = Int(Int32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)))
        offset += 8
        for _ in 0..<count { try body(field()) }
    }
}
