import Foundation
import TallyTestSupport
import Testing

/// The password of the connection URL never appears in any output, log line or error, whatever
/// fails: authentication, an unreachable server, a malformed URL, a conninfo string.
@Suite("Secrets")
struct SecretsTests {
    static let commands: [[String]] = [
        ["migrate"], ["doctor"], ["summary", "--by", "feature"], ["summary", "--exact"],
        [
            "ingest", "Examples/sample/events.ndjson", "--store", "postgres", "--quiet", "--data-dir",
            "/tmp/tally-secrets",
        ],
    ]

    @Test("wrong password, unreachable server, malformed URL, conninfo: the password is never printed")
    func passwordNeverPrinted() async throws {
        let adminURL = try TestDatabase.adminURL
        let secret = "Hunter2-\(UUID().uuidString.prefix(8))"
        var wrongPassword = URLComponents(string: adminURL)!
        wrongPassword.password = secret
        var unreachable = wrongPassword
        unreachable.port = 1
        let targets = [
            ("wrong password", wrongPassword.string!),
            ("unreachable", unreachable.string!),
            ("malformed URL", "postgresql://tally:\(secret)@[::1/postgres?sslmode=bogus"),
            ("bad option", "postgresql://tally:\(secret)@127.0.0.1:1/postgres?sslmode=bogus"),
            ("conninfo", "host=127.0.0.1 port=1 user=tally password=\(secret) connect_timeout=2"),
            ("conninfo, quoted", "host=127.0.0.1 port=\(wrongPassword.port ?? 5432) user=tally password='\(secret) x'"),
        ]
        for (label, url) in targets {
            for command in Self.commands {
                let result = try await TestDatabase.tally(command + ["--database-url", url], timeout: .seconds(120))
                #expect(result.status != 0, "\(label) \(command)")
                #expect(!(result.stdout + result.stderr).isEmpty, "\(label) \(command): says what went wrong")
                #expect(!(result.stdout + result.stderr).contains(secret), "\(label) \(command): \(result.stderr)")
            }
            // The same through the environment.
            let fromEnvironment = try await ChildProcess(
                "tally",
                arguments: ["doctor"],
                environment: ["DATABASE_URL": url]
            )
            .wait(timeout: .seconds(120))
            #expect(!(fromEnvironment.stdout + fromEnvironment.stderr).contains(secret), "\(label) DATABASE_URL")
        }
    }
}
