import Foundation
import TallyTestSupport
import Testing

/// An installed `tally` (a copy of the binary, far from the repository) migrates and checks a
/// database from any working directory: the migrations are built into the binary.
@Suite(.serialized)
struct InstalledBinaryTests {
    @Test("a copied binary migrates from another directory, and doctor passes")
    func migrateFromAnyDirectory() async throws {
        let database = try await TestDatabase.create()
        let prefix = NSTemporaryDirectory() + "tally-installed-" + UUID().uuidString
        let elsewhere = prefix + "/elsewhere"
        try FileManager.default.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        let binary = prefix + "/bin/tally"
        try FileManager.default.copyItem(
            atPath: ChildProcess.binaryDirectory.appendingPathComponent("tally").path,
            toPath: binary
        )

        let migrate = try await ChildProcess(
            binary,
            arguments: ["migrate", "--database-url", database.url],
            directory: elsewhere
        )
        .wait(timeout: .seconds(300))
        #expect(migrate.status == 0, "\(migrate.stderr)")
        #expect(!migrate.stderr.contains("migrations directory"), "\(migrate.stderr)")

        let doctor = try await ChildProcess(
            binary,
            arguments: ["doctor", "--database-url", database.url],
            directory: elsewhere
        )
        .wait(timeout: .seconds(300))
        #expect(doctor.status == 0, "stdout: \(doctor.stdout)\nstderr: \(doctor.stderr)")

        let again = try await ChildProcess(
            binary,
            arguments: ["migrate", "--database-url", database.url],
            directory: elsewhere
        )
        .wait(timeout: .seconds(300))
        #expect(again.status == 0, "\(again.stderr)")
    }
}
