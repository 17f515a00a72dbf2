import Foundation
import TallyCore
package import TallySchema
package import TallyServer

/// The keys `tally serve` checks: its keys file read into write keys, each with the validator of
/// its registry, at start and again on each SIGHUP.
package struct CollectorKeys: Sendable {
    /// The keys file; nil without `--keys` (only with `--allow-anonymous`).
    package var path: String?
    /// The validator of events whose key names no registry (and of anonymous ones): the server's
    /// own `--registry`, loaded once.
    package var fallback: EventValidator
    /// The limits every key's validator applies.
    package var limits: ValidationLimits
    /// Requests without a key (any key, when the file holds none) are accepted.
    package var allowAnonymous: Bool

    package init(path: String?, fallback: EventValidator, limits: ValidationLimits, allowAnonymous: Bool) {
        self.path = path
        self.fallback = fallback
        self.limits = limits
        self.allowAnonymous = allowAnonymous
    }

    /// The keys of the file now: the keys' registries are read each time, since the file may name
    /// new ones.
    /// - Throws: ``CommandFailure``: 66 no such file, 65 a file that is not a keys file or names a
    ///   registry that is missing or has problems.
    package func load() throws -> WriteKeyTable {
        guard let path else {
            return WriteKeyTable(entries: [], validators: [:], fallback: fallback, allowAnonymous: allowAnonymous)
        }
        let file = try KeysFileAccess.read(path)
        var validators: [String: EventValidator] = [:]
        let base = (path as NSString).deletingLastPathComponent
        for directory in Set(file.keys.filter(\.isAccepted).compactMap(\.registry)) {
            let registry = directory.hasPrefix("/") || base.isEmpty ? directory : base + "/" + directory
            guard Directory.exists(registry) else {
                // The keys file's data is wrong (65), not the command line.
                throw CommandFailure(
                    .dataError,
                    "the keys file \(path) names the registry \(registry), which is not a directory"
                )
            }
            do {
                validators[directory] = EventValidator(
                    registry: try SchemaRegistry.load(directory: registry),
                    limits: limits
                )
            } catch {
                throw CommandFailure(
                    .dataError,
                    "the registry \(registry) of a key has problems:\n"
                        + error.problems.map { "  \($0)" }.joined(separator: "\n")
                )
            }
        }
        return WriteKeyTable(
            entries: file.keys,
            validators: validators,
            fallback: fallback,
            allowAnonymous: allowAnonymous
        )
    }
}
