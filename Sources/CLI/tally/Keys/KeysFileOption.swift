import ArgumentParser
import TallyOperations
import TallyServer

/// `--keys FILE`: the keys file every keys command reads and writes.
struct KeysFileOption: ParsableArguments {
    @Option(name: .long, help: "The keys file.")
    var keys: String

    /// Reads the file (66 when there is none, 65 when it is not a keys file).
    func read() throws -> WriteKeysFile {
        try KeysFileAccess.read(keys)
    }

    /// Writes `file` in place of the keys file (73 when it cannot be written there, 74 on I/O errors).
    func write(_ file: WriteKeysFile) throws {
        try KeysFileAccess.write(file, to: keys)
    }
}
