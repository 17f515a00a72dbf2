import Foundation

/// The Swift files under the directories `verify` is given, in a stable order.
enum SourceFiles {
    /// Directories never searched: build products, package checkouts, hidden folders.
    static let skipped: Set<String> = [".build", ".swiftpm", "checkouts", "DerivedData", "Pods", "Carthage"]

    /// Every `*.swift` file under `directories` (a file given directly is taken as is), each path as
    /// its directory was given joined with the path below it.
    static func find(in directories: [String]) throws -> [String] {
        var files: [String] = []
        let manager = FileManager.default
        for directory in directories {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: directory, isDirectory: &isDirectory) else {
                throw VerifyError(.missingSources, "\(directory) does not exist")
            }
            guard isDirectory.boolValue else {
                files.append(directory)
                continue
            }
            let base = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
            guard let enumerator = manager.enumerator(atPath: base) else { continue }
            var found: [String] = []
            while let relative = enumerator.nextObject() as? String {
                let name = (relative as NSString).lastPathComponent
                if skipped.contains(name) || name.hasPrefix(".") {
                    enumerator.skipDescendants()
                    continue
                }
                if name.hasSuffix(".swift") { found.append(base + "/" + relative) }
            }
            files += found.sorted()
        }
        return files
    }
}
