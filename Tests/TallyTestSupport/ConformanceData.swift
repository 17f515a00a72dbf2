public import Foundation
import Testing

/// Finds the shared conformance suites: `$TALLY_CONFORMANCE_DIR`, else `../shared/external-data`
/// from the repository root.
///
/// A test whose suite is absent can never pass by accident: under scripts/test.sh (which sets
/// `TALLY_TEST_REQUIRE_CONFORMANCE=1`) it fails with ``MissingData``; in a plain `swift test` it is
/// cancelled, which the test runner reports as skipped, with the reason.
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

    /// A folder of the suites. When it is absent: throws ``MissingData`` where the suites are
    /// required (scripts/test.sh), else cancels the current test (a skip, with why).
    public static func require(_ name: String) throws -> URL {
        if let url = root?.appendingPathComponent(name), FileManager.default.fileExists(atPath: url.path) {
            return url
        }
        if ProcessInfo.processInfo.environment["TALLY_TEST_REQUIRE_CONFORMANCE"] == "1" {
            throw MissingData(name: name)
        }
        try Test.cancel(
            Comment(
                rawValue:
                    "skipped: conformance data \(name) not found (set TALLY_CONFORMANCE_DIR). A plain `swift test` "
                    + "skips the conformance tests without it; scripts/test.sh fails them."
            )
        )
    }

    /// Thrown by a conformance test run by scripts/test.sh without its data: a failure, not a skip.
    public struct MissingData: Error, CustomStringConvertible {
        /// The folder under the conformance directory.
        public var name: String

        public var description: String {
            "TALLY_TEST_REQUIRE_CONFORMANCE=1 but \(name) is not under TALLY_CONFORMANCE_DIR "
                + "(\(ProcessInfo.processInfo.environment["TALLY_CONFORMANCE_DIR"] ?? "unset")): scripts/test.sh runs "
                + "every conformance test and fails one whose data is missing"
        }
    }
}
