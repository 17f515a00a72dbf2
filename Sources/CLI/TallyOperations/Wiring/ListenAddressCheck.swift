import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether `tally serve` can listen where it was asked, checked before anything else is done (a
/// data directory created, a warning printed) for a command that would then fail. A bind and
/// close, as the server binds (`SO_REUSEADDR`); the server's own bind still reports a port
/// taken in between.
package enum ListenAddressCheck {
    package static func check(host: String, port: Int) throws {
        let address: SocketAddress
        do {
            address = try SocketAddress.makeAddressResolvingHost(host, port: port)
        } catch {
            throw hostFailure(host, error)
        }
        #if canImport(Darwin)
            let descriptor = socket(address.protocol.rawValue, SOCK_STREAM, 0)
        #else
            let descriptor = socket(address.protocol.rawValue, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard descriptor >= 0 else { return }  // no socket to probe with: the server's bind will tell
        defer { close(descriptor) }
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = address.withSockAddr { pointer, size in bind(descriptor, pointer, socklen_t(size)) }
        guard bound != 0 else { return }
        let code = errno
        throw CommandFailure(.usage, message(host: host, port: port, errno: code))
    }

    /// The failure for a `--host` that does not resolve (also for the server's own resolution).
    package static func hostFailure(_ host: String, _ error: any Error) -> CommandFailure {
        if error is SocketAddressError.UnknownHost {
            return CommandFailure(
                .usage,
                "cannot listen on --host \(host): no such address; give an IP address or a name"
            )
        }
        return CommandFailure(.usage, "cannot listen on --host \(host) (\(error)); give an IP address or a name")
    }

    /// The message for a bind that failed with `code` (also for the server's own bind).
    package static func message(host: String, port: Int, errno code: Int32) -> String {
        switch code {
        case EADDRINUSE: "cannot listen on \(host):\(port): the address is in use; choose another --port"
        case EACCES: "cannot listen on \(host):\(port): permission denied; choose another --port"
        case EADDRNOTAVAIL:
            "cannot listen on --host \(host): not an address of this machine; give one of its addresses, or 0.0.0.0"
        default: "cannot listen on \(host):\(port): \(String(cString: strerror(code)))"
        }
    }
}
