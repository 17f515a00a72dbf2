import ArgumentParser
import TallyOperations
import TallyServer

/// `tally keys list`.
struct KeysListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the keys by id, with their status and source (never the keys).",
        discussion: """
            One line per key, tab-separated: the id, the status (active, rotated or revoked), the source, then \
            role=reader for a dashboard key, and what is set of feature=, registry=, created_at=, rotated_at=, replaced_by= (the id of the key that \
            replaced a rotated one) and revoked_at=.

            Example (tabs shown as spaces, timestamps left out):
              tally keys list --keys /etc/tally/keys.json
              3f9a2c81d0e4  rotated  ios-app  feature=episode  replaced_by=7b01aa93c2f1
              7b01aa93c2f1  active   ios-app  feature=episode
            """
    )

    @OptionGroup var file: KeysFileOption

    func run() throws {
        let keys = try file.read()
        guard !keys.keys.isEmpty else {
            Terminal.error("no keys in \(file.keys); `tally keys add --keys \(file.keys) --source NAME` makes one")
            return
        }
        for entry in keys.keys {
            var fields = [entry.id, entry.status.rawValue, entry.source]
            if entry.role == .reader { fields.append("role=reader") }
            let optional: [(String, String?)] = [
                ("feature", entry.feature), ("registry", entry.registry), ("created_at", entry.createdAt),
                ("rotated_at", entry.rotatedAt), ("replaced_by", entry.replacedBy), ("revoked_at", entry.revokedAt),
            ]
            for case (let name, let value?) in optional { fields.append("\(name)=\(value)") }
            Terminal.print(fields.joined(separator: "\t"))
        }
        if !keys.keys.contains(where: \.isAccepted) {
            Terminal.error(
                "every key in \(file.keys) is revoked: tally serve refuses every request; "
                    + "`tally keys add --keys \(file.keys) --source NAME` makes one"
            )
        }
    }
}
