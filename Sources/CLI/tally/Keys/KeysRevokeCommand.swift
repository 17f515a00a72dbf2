import ArgumentParser
import TallyOperations
import TallyServer

/// `tally keys revoke`.
struct KeysRevokeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Revoke a key: tally serve refuses it (401) once it reloads the keys file.",
        discussion: """
            KEY is the key's id as `tally keys list` shows it (or its first 6 or more digits, when no other id \
            starts with them), or the key itself. The entry stays in the file, marked revoked, as a record; \
            revoking a revoked key changes nothing. Requests in flight when tally serve reloads finish as they \
            started; the next ones with this key get 401.

            Examples:
              tally keys revoke --keys /etc/tally/keys.json 3f9a2c81d0e4
              systemctl reload tally-serve             # refused (401) from now on
              tally keys revoke --keys keys.json "$LEAKED_KEY"      # by the key itself

            Exit codes: 64 no key is KEY (or more than one id starts with it); 65 the keys file is not valid; \
            66 no keys file; 73 the keys file cannot be written.
            """
    )

    @OptionGroup var file: KeysFileOption

    @Argument(help: "The key's id (tally keys list), a unique prefix of it, or the key itself.")
    var key: String

    func run() throws {
        var keys = try file.read()
        let before: WriteKeysFile.Entry
        do {
            before = try keys.revoke(key)
        } catch {
            throw CommandFailure(.usage, "\(error.message) (in \(file.keys))")
        }
        guard before.status != .revoked else {
            Terminal.error("the key \(before.id) (\(before.source)) was already revoked at \(before.revokedAt ?? "?")")
            return
        }
        try file.write(keys)
        Terminal.error("revoked the key \(before.id) (\(before.source)); \(KeysFileAccess.reloadHint)")
        if !keys.keys.contains(where: \.isAccepted) {
            Terminal.error(
                "warning: no key in \(file.keys) is accepted any more: tally serve will refuse every request"
            )
        }
    }
}
