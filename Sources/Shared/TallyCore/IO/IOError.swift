#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A failed system call on a file, naming the operation, the path and the system's reason.
///
/// The description is `open /var/lib/tally/2026-11-22.ndjson: Permission denied`: never what was
/// being read or written.
package struct IOError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The system call that failed, stable across releases (`open`, `write`, `fsync`, …). A
    /// struct, so that an operation added later breaks no `switch`.
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String {
            case access, chmod, chown, flock, fsync, mkdir, open, opendir, poll, read, rename, stat, unlink, write
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// `access(2)`: checking that a directory is writable.
        package static let access = Code(.access)
        /// `fchmod(2)`: giving a replacement file the mode of the one it replaces.
        package static let chmod = Code(.chmod)
        /// `fchown(2)`: giving a replacement file the owner and group of the one it replaces.
        package static let chown = Code(.chown)
        /// `flock(2)`: taking a file's lock, which appenders and rewriters of the file store share.
        package static let flock = Code(.flock)
        /// `fsync(2)`: making written data durable.
        package static let fsync = Code(.fsync)
        /// `mkdir(2)`: creating a directory.
        package static let mkdir = Code(.mkdir)
        /// `open(2)`: opening or creating a file.
        package static let open = Code(.open)
        /// `opendir(3)`: listing a directory.
        package static let opendir = Code(.opendir)
        /// `poll(2)`: waiting for input.
        package static let poll = Code(.poll)
        /// `read(2)`.
        package static let read = Code(.read)
        /// `rename(2)`: moving a finished file into place.
        package static let rename = Code(.rename)
        /// `stat(2)`.
        package static let stat = Code(.stat)
        /// `unlink(2)`: removing a file.
        package static let unlink = Code(.unlink)
        /// `write(2)`.
        package static let write = Code(.write)

        /// The operation's name (`open`).
        package var description: String { base.rawValue }
    }

    /// The operation that failed.
    package internal(set) var code: Code
    /// The file or directory.
    package internal(set) var path: String
    /// The `errno` value.
    package internal(set) var errno: Int32

    /// Creates an error.
    package init(_ code: Code, path: String, errno: Int32) {
        self.code = code
        self.path = path
        self.errno = errno
    }

    package var description: String {
        "\(code) \(path): \(String(cString: strerror(errno)))"
    }
}
