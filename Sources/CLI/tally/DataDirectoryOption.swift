import ArgumentParser
import TallyFileStore

/// `--data-dir DIR`: the file store, defaulting to `$TALLY_DATA_DIR`, else `./tally-data`.
struct DataDirectoryOption: ParsableArguments {
    @Option(name: .long, help: "The file store's directory (default: $TALLY_DATA_DIR, else ./tally-data).")
    var dataDir: String?

    /// The directory to use.
    var path: String { dataDir ?? FileStoreLayout.defaultRoot }
}
