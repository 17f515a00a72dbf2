public import Foundation

/// Finds the shared conformance suites: `$TALLY_CONFORMANCE_DIR`, else `../shared/external-data`
/// from the repository root. Tests that need them skip with a visible message when absent.
public enum ConformanceData {
    /// The external-data directory, if present.
    public static var root: URL? {
        let environment = ProcessInfo.processInfo.environment["TALLY_CONFORMANCE_DIR"]
        let candidates = [
            environment, repositoryRoot.map { $0.deletingLastPathComponent().path + "/shared/external-data" },
        ]
        for case let path? in candidates where FileManager.default.fileExists(atPath: path) {
            return URL(fileURLWithPath: path)
        }
        return nil
    }

    /// The directory holding Package.swift, found from this source file.
    public static var repositoryRoot: URL? {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        return nil
    }

    /// A folder of the suites, or nil (with a printed notice) when it is absent.
    public static func directory(_ name: String) -> URL? {
        guard let url = root?.appendingPathComponent(name), FileManager.default.fileExists(atPath: url.path) else {
            print("⚠︎ skipped: conformance data \(name) not found (set TALLY_CONFORMANCE_DIR)")
            return nil
        }
        return url
    }
}
