import ArgumentParser

/// `tally keys …`: the collector's write keys.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Make, list, rotate and revoke the collector's write keys (the keys file stores only their SHA-256).",
        discussion: """
            Each key has an id, the first 12 hex digits of its hash, which `tally keys list` shows and `revoke` and \
            `rotate` take (or the key itself). A key is active, rotated (replaced by a newer key and still \
            accepted until it is revoked) or revoked (refused, kept in the file as a record).

            A running `tally serve` reads the keys file again on SIGHUP (`systemctl reload tally-serve`, \
            `kill -HUP PID`): keys added, rotated or revoked take effect then, without a restart and without \
            failing a request in flight. A keys file that cannot be read then changes nothing (the error is logged).
            """,
        subcommands: [
            KeysAddCommand.self, KeysListCommand.self, KeysRotateCommand.self, KeysRevokeCommand.self,
        ]
    )
}
