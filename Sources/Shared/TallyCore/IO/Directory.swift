#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Directory operations that report the system's reason (`errno`) with the path.
package enum Directory {
    /// Creates `path` and its parents (mode 0755), like `mkdir -p`.
    package static func create(_ path: String) throws(IOError) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o755) != 0 && errno != EEXIST {
                throw IOError(.mkdir, path: current, errno: errno)
            }
        }
    }

    /// Creates `path` if needed and checks that files can be created in it (a read-only file
    /// system, a file in the way or missing permissions fail here, before any work is done).
    package static func checkWritable(_ path: String) throws(IOError) {
        try create(path)
        var info = stat()
        if stat(path, &info) != 0 { throw IOError(.stat, path: path, errno: errno) }
        if (info.st_mode & S_IFMT) != S_IFDIR { throw IOError(.mkdir, path: path, errno: ENOTDIR) }
        if access(path, W_OK | X_OK) != 0 { throw IOError(.access, path: path, errno: errno) }
    }

    /// fsyncs the directory `path`: the files created, renamed or removed in it are durable.
    package static func sync(_ path: String) throws(IOError) {
        let descriptor = systemOpen(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw IOError(.open, path: path, errno: errno) }
        defer { close(descriptor) }
        if fsync(descriptor) != 0 { throw IOError(.fsync, path: path, errno: errno) }
    }

    /// The directory part of `path` (`.` for a bare name, `/` for a file at the root).
    package static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The names in `path` (not `.` and `..`); an empty list when it does not exist.
    package static func list(_ path: String) throws(IOError) -> [String] {
        guard let directory = opendir(path) else {
            if errno == ENOENT { return [] }
            throw IOError(.opendir, path: path, errno: errno)
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Whether `path` is a directory.
    package static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
}
