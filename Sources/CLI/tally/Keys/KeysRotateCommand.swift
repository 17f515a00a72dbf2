import ArgumentParser
import TallyOperations
import TallyServer

/// `tally keys rotate`.
struct KeysRotateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate",
        abstract: "Replace a key: prints a new key once on stdout; the old one stays accepted until it is revoked.",
        discussion: """
            KEY is the key's id as `tally keys list` shows it (or its first 6 or more digits, when no other id \
            starts with them), or the key itself. The new key gets the old one's source, feature and registry; \
            the old one is marked rotated (replaced_by names the new id). Both are accepted, so apps can move to \
            the new key at their pace; tally_collector_rotated_key_requests_total{key_id="…"} on /metrics counts \
            the requests that still use the old one. Then revoke it.

            Examples:
              tally keys rotate --keys /etc/tally/keys.json 3f9a2c81d0e4 > new-key.txt
              systemctl reload tally-serve             # both keys accepted from now on
              # once the apps send the new key:
              tally keys revoke --keys /etc/tally/keys.json 3f9a2c81d0e4
              systemctl reload tally-serve

            Exit codes: 64 no key is KEY (or more than one id starts with it), or it is revoked; 65 the keys file \
            is not valid; 66 no keys file; 73 the keys file cannot be written.
            """
    )

    @OptionGroup var file: KeysFileOption

    @Argument(help: "The key's id (tally keys list), a unique prefix of it, or the key itself.")
    var key: String

    func run() throws {
        var keys = try file.read()
        let rotated: (key: String, entry: WriteKeysFile.Entry, old: WriteKeysFile.Entry)
        do {
            rotated = try keys.rotate(key)
        } catch {
            throw CommandFailure(.usage, "\(error.message) (in \(file.keys))")
        }
        try file.write(keys)
        Terminal.print(rotated.key)
        let old = rotated.old
        if old.status == .rotated, let previous = old.replacedBy {
            Terminal.error("note: \(old.id) had been rotated before (to \(previous), which stays as it is)")
        }
        Terminal.error(
            "rotated the key \(old.id) (\(old.source)) to \(rotated.entry.id): both are accepted until "
                + "`tally keys revoke --keys \(file.keys) \(old.id)`; \(KeysFileAccess.reloadHint)"
        )
    }
}
