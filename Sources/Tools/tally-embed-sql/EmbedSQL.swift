import Foundation

/// `tally-embed-sql`: the tool TallyMigrationsPlugin runs at build time. It writes the SQL files it
/// is given into one Swift source file, so the `tally` binary carries its migrations and
/// `tally migrate` works from any directory and any install.
///
/// Usage: `tally-embed-sql OUTPUT.swift ROOT [FILE…]` — each FILE (without FILEs, every `*.sql` file
/// under ROOT) is stored under its path relative to ROOT (`0001_events.sql`), with its exact bytes
/// (the migration checksums are over them).
@main
enum EmbedSQL {
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        guard arguments.count >= 2, let output = arguments.first else {
            fail("usage: tally-embed-sql OUTPUT.swift ROOT [FILE…]")
        }
        let root = URL(fileURLWithPath: arguments.dropFirst().first!).standardizedFileURL.path
        var source = """
            // Generated at build time by TallyMigrationsPlugin from the package's sql/ directory: do not edit.

            extension Migrator {
                /// The migration files the binary was built with: path relative to `sql/`, and the SQL.
                static let embeddedFiles: [(path: String, sql: String)] = [

            """
        let files = arguments.count > 2 ? Array(arguments.dropFirst(2)) : sqlFiles(under: root)
        for path in files.sorted() {
            let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
            guard absolute.hasPrefix(root + "/") else { fail("\(path) is not under \(root)") }
            guard let data = FileManager.default.contents(atPath: absolute) else { fail("cannot read \(path)") }
            guard let text = String(data: data, encoding: .utf8) else { fail("\(path) is not UTF-8") }
            let relative = String(absolute.dropFirst(root.count + 1))
            source += "        (\(literal(relative)), \(literal(text))),\n"
        }
        source += "    ]\n}\n"
        do {
            try source.write(toFile: output, atomically: true, encoding: .utf8)
        } catch {
            fail("cannot write \(output): \(error)")
        }
    }

    /// A one-line Swift string literal of `text`, byte for byte (a multi-line literal would
    /// normalize line endings and change the checksum of a file with CRLFs).
    static func literal(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                result += "\\u{\(String(scalar.value, radix: 16))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// Every `*.sql` file under `root`, subdirectories included.
    static func sqlFiles(under root: String) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { fail("cannot list \(root)") }
        return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".sql") }.map { root + "/" + $0 }
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data(("tally-embed-sql: " + message + "\n").utf8))
        exit(1)
    }
}
