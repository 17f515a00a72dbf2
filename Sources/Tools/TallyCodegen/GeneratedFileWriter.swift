import Foundation

extension SwiftCodeGenerator {
    /// Writes the files into `directory` (created when missing), leaving files whose contents are
    /// unchanged untouched, and removes `*.tracking.swift` files of plans that no longer exist.
    /// Returns the paths written.
    package func write(to directory: String) throws -> [String] {
        let manager = FileManager.default
        try manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var written: [String] = []
        let names = Set(files.map(\.name))
        for file in files {
            let path = directory + "/" + file.name
            let data = Data(file.contents.utf8)
            if manager.contents(atPath: path) != data {
                try data.write(to: URL(fileURLWithPath: path), options: .atomic)
                written.append(path)
            }
        }
        for stale in try manager.contentsOfDirectory(atPath: directory)
        where stale.hasSuffix(".tracking.swift") && !names.contains(stale) {
            try manager.removeItem(atPath: directory + "/" + stale)
        }
        return written
    }
}
