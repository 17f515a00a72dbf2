import TallyCore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The system calls of the outbox, each reporting the path and `errno` of a failure.
enum SystemFiles {
    /// A directory entry with what the caps and the state need: size and modification time.
    struct Entry {
        var name: String
        var size: Int
        /// The last write (the batch's write time: files are never modified), to the nanosecond, so
        /// that an age cap of a few seconds is not off by up to two of them.
        var modified: Timestamp
    }

    /// `bytes` written to a new file in `temporaryDirectory`, fsynced, renamed to `path` and the
    /// directory of `path` fsynced: a crash leaves the whole file or none.
    static func writeAtomically(_ bytes: [UInt8], to path: String, directory: String, temporaryDirectory: String)
        throws(DeliveryError)
    {
        let temporary = try writeTemporary(bytes, temporaryDirectory: temporaryDirectory)
        try move(temporary, to: path)
        try syncDirectory(directory)
    }

    /// `bytes` in a new fsynced file of `temporaryDirectory`; returns its path. On failure no file is left.
    static func writeTemporary(_ bytes: [UInt8], temporaryDirectory: String) throws(DeliveryError) -> String {
        var random = SystemRandomNumberGenerator()
        let path = temporaryDirectory + "/\(getpid())-\(String(random.next(), radix: 36)).tmp"
        let descriptor = systemOpen(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure("open", path) }
        do {
            try FileDescriptorWriter.writeAll(bytes, to: descriptor, path: path)
        } catch {
            close(descriptor)
            unlink(path)
            throw DeliveryError(.outboxWriteFailed, "\(error)", errno: error.errno)
        }
        if fsync(descriptor) != 0 {
            let error = failure("fsync", path)
            close(descriptor)
            unlink(path)
            throw error
        }
        close(descriptor)
        return path
    }

    /// `rename(2)`; the caller syncs the directory.
    static func move(_ from: String, to path: String) throws(DeliveryError) {
        if rename(from, path) != 0 {
            let error = failure("rename", from + " to " + path)
            unlink(from)
            throw error
        }
    }

    /// `unlink(2)`; a file already gone is not an error.
    static func remove(_ path: String) {
        _ = unlink(path)
    }

    /// Makes the entries of `path` durable (a rename or a new file in it).
    static func syncDirectory(_ path: String) throws(DeliveryError) {
        let descriptor = systemOpen(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("open", path) }
        defer { close(descriptor) }
        if fsync(descriptor) != 0 { throw failure("fsync", path) }
    }

    /// The regular files of `directory` (names not starting with a dot), unsorted.
    static func list(_ directory: String) -> [Entry] {
        var known: [String: Entry] = [:]
        return list(directory, known: &known)
    }

    /// ``list(_:)``, taking the size and time of files listed before from `known` (batch files
    /// never change once renamed in, so a long outbox costs one `stat` per new file, not per file),
    /// and leaving in `known` what is listed now.
    static func list(_ directory: String, known: inout [String: Entry]) -> [Entry] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var entries: [Entry] = []
        var listed: [String: Entry] = [:]
        defer { known = listed }
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name.hasPrefix(".") { continue }
            if let seen = known[name] {
                entries.append(seen)
                listed[name] = seen
                continue
            }
            var info = stat()
            guard stat(directory + "/" + name, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            #if canImport(Darwin)
                let modified = Timestamp(
                    secondsSinceEpoch: Int64(info.st_mtimespec.tv_sec),
                    nanoseconds: Int64(info.st_mtimespec.tv_nsec)
                )
            #else
                let modified = Timestamp(
                    secondsSinceEpoch: Int64(info.st_mtim.tv_sec),
                    nanoseconds: Int64(info.st_mtim.tv_nsec)
                )
            #endif
            let listedEntry = Entry(name: name, size: Int(info.st_size), modified: modified)
            entries.append(listedEntry)
            listed[name] = listedEntry
        }
        return entries
    }

    /// The whole file, or nil when it cannot be read.
    static func read(_ path: String) -> [UInt8]? {
        let descriptor = systemOpen(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    static func failure(_ call: String, _ path: String) -> DeliveryError {
        let code = errno
        return DeliveryError(.outboxWriteFailed, "\(call) \(path): \(String(cString: strerror(code)))", errno: code)
    }

    /// Whether `error` says the disk (or the user's quota) is full.
    static func isDiskFull(_ error: DeliveryError) -> Bool {
        error.errno == ENOSPC || error.errno == EDQUOT
    }
}
