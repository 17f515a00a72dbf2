import Foundation
import TallyPostgres

/// A database of its own for one test, on the throwaway cluster scripts/test.sh starts
/// (`$TALLY_TEST_DATABASE_URL`). Tests skip, saying so, when there is none.
struct TestDatabase {
    let url: String
    let name: String
    private let adminURL: String

    static var adminURL: String? {
        guard let url = ProcessInfo.processInfo.environment["TALLY_TEST_DATABASE_URL"], !url.isEmpty else {
            print("⚠︎ skipped: no TALLY_TEST_DATABASE_URL (scripts/test.sh starts a throwaway PostgreSQL)")
            return nil
        }
        return url
    }

    static func create() async throws -> TestDatabase? {
        guard let adminURL else { return nil }
        let name = "tally_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        let admin = try await PostgresConnection.connect(adminURL)
        try await admin.execute("CREATE DATABASE \(name)")
        await admin.close()
        var components = URLComponents(string: adminURL)!
        components.path = "/" + name
        return TestDatabase(url: components.string!, name: String(name), adminURL: adminURL)
    }

    func drop() async {
        guard let admin = try? await PostgresConnection.connect(adminURL) else { return }
        try? await admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        await admin.close()
    }

    static var repository: String {
        var url = URL(fileURLWithPath: #filePath)
        while !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
            url.deleteLastPathComponent()
        }
        return url.path
    }

    /// Runs the built `tally` with `arguments`.
    static func tally(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while directory.path != "/" {
            directory.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("tally").path) { break }
        }
        let process = Process()
        process.executableURL = directory.appendingPathComponent("tally")
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: repository)
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }
}
