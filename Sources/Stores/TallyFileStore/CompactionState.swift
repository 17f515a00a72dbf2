import TallyCore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The day files a compaction left clean, by inode and size (`DATA_DIR/compaction.state`), so that
/// the next one reads only the days written since: writers only append (the size changes) and a
/// rewrite makes a new inode. A missing or unreadable state only means reading everything.
struct CompactionState {
    private struct File: Hashable {
        var inode: UInt64
        var size: Int
    }

    private let path: String
    private let root: String
    private var clean: [String: File] = [:]

    /// The state of the store at `layout` (empty when there is none).
    init(layout: FileStoreLayout) {
        path = layout.root + "/compaction.state"
        root = layout.root + "/"
        let descriptor = systemOpen(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var reader = LineReader(descriptor: descriptor, path: path)
        try? reader.forEachLine { line in
            let fields = String(decoding: line.bytes, as: UTF8.self).split(separator: " ", maxSplits: 2)
            guard fields.count == 3, let inode = UInt64(fields[0]), let size = Int(fields[1]) else { return }
            clean[String(fields[2])] = File(inode: inode, size: size)
        }
    }

    /// Whether `path` is as a compaction left it.
    func isClean(_ path: String) -> Bool {
        guard let known = clean[relative(path)], let current = Self.identity(path) else { return false }
        return known == current
    }

    /// Records `path` (as it is on disk now) as clean.
    mutating func recordClean(_ path: String) {
        clean[relative(path)] = Self.identity(path)
    }

    /// Forgets `path` (removed).
    mutating func forget(_ path: String) {
        clean[relative(path)] = nil
    }

    /// Writes the state, keeping only files that still exist.
    func save() throws(IOError) {
        var bytes: [UInt8] = []
        for (name, file) in clean.sorted(by: { $0.key < $1.key }) where Self.identity(root + name) != nil {
            bytes.append(contentsOf: "\(file.inode) \(file.size) \(name)\n".utf8)
        }
        let replacement = try FileReplacement(replacing: path)
        try replacement.append(bytes)
        try replacement.commit()
    }

    private func relative(_ path: String) -> String {
        path.hasPrefix(root) ? String(path.dropFirst(root.count)) : path
    }

    private static func identity(_ path: String) -> File? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return File(inode: UInt64(info.st_ino), size: Int(info.st_size))
    }
}
