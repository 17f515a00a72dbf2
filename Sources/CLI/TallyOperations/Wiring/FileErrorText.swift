import Foundation
import TallyCore

/// Foundation's file and decoding errors in the words a user can act on.
///
/// Their `localizedDescription` on Linux is "The operation could not be completed. (NSCocoaErrorDomain
/// error 512.)" or "The data is missing.": neither says which key or which system error. This
/// names the system error (`strerror`) where there is one, and the key path for a JSON file
/// that does not decode.
package enum FileErrorText {
    package static func describe(_ error: any Error) -> String {
        if let decoding = error as? DecodingError { return describe(decoding) }
        if let code = systemCode(error) { return systemText(code) }
        let nsError = error as NSError
        if nsError.domain == NSCocoaErrorDomain, CocoaError.Code(rawValue: nsError.code) == .fileReadCorruptFile {
            return "not valid JSON"
        }
        return error.localizedDescription
    }

    /// The exit code for an output that could not be written: 73 when the place cannot take it
    /// (not a directory, no permission, read-only), 74 when the device failed (no space, I/O).
    package static func writeFailureCode(_ error: any Error) -> Sysexit {
        guard let code = systemCode(error) else { return .ioError }
        return [ENOTDIR, EISDIR, EACCES, EPERM, EROFS, ENOENT, EEXIST].contains(code) ? .cannotCreate : .ioError
    }

    /// The system error (`errno`) behind `error`, where there is one: Foundation's Cocoa errors on
    /// Linux carry none for a path under a regular file or a directory in a file's place.
    private static func systemCode(_ error: any Error) -> Int32? {
        if let io = error as? IOError { return io.errno }
        if let posix = error as? POSIXError { return posix.code.rawValue }
        let nsError = error as NSError
        if nsError.domain == NSPOSIXErrorDomain { return Int32(nsError.code) }
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError,
            underlying.domain == NSPOSIXErrorDomain
        {
            return Int32(underlying.code)
        }
        guard nsError.domain == NSCocoaErrorDomain else { return nil }
        var isDirectory: ObjCBool = false
        if let path = nsError.userInfo[NSFilePathErrorKey] as? String
            ?? (nsError.userInfo[NSURLErrorKey] as? URL)?.path,
            FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue
        {
            return EISDIR
        }
        if let path = nsError.userInfo[NSFilePathErrorKey] as? String, Self.hasFileAmongParents(path) {
            return ENOTDIR
        }
        switch CocoaError.Code(rawValue: nsError.code) {
        case .fileNoSuchFile, .fileReadNoSuchFile: return ENOENT
        case .fileReadNoPermission, .fileWriteNoPermission: return EACCES
        case .fileWriteOutOfSpace: return ENOSPC
        case .fileWriteVolumeReadOnly: return EROFS
        default: return nil
        }
    }

    /// True when `error` says the file is not there.
    package static func isMissingFile(_ error: any Error) -> Bool {
        let nsError = error as NSError
        if nsError.domain == NSCocoaErrorDomain {
            let code = CocoaError.Code(rawValue: nsError.code)
            if code == .fileNoSuchFile || code == .fileReadNoSuchFile { return true }
        }
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError,
            underlying.domain == NSPOSIXErrorDomain, underlying.code == Int(ENOENT)
        {
            return true
        }
        return nsError.domain == NSPOSIXErrorDomain && nsError.code == Int(ENOENT)
    }

    /// Whether a parent of `path` is a regular file (so nothing can be made under it).
    private static func hasFileAmongParents(_ path: String) -> Bool {
        var url = URL(fileURLWithPath: path).deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        while url.path != "/" {
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
                return !isDirectory.boolValue
            }
            url.deleteLastPathComponent()
        }
        return false
    }

    private static func systemText(_ code: Int32) -> String {
        String(cString: strerror(code)).lowercased()
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }
            return "$" + keys.joined()
        }
        switch error {
        case .dataCorrupted(let context):
            guard context.codingPath.isEmpty else { return "\(path(context)): \(context.debugDescription)" }
            // Foundation's own text names no place; tally's parser (the keys file's check) does.
            guard context.underlyingError is JSONError else { return "not valid JSON" }
            return "not valid JSON: \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "\(path(context)) has no \"\(key.stringValue)\""
        case .typeMismatch(let type, let context):
            return "\(path(context)) is not \(Self.name(of: type))"
        case .valueNotFound(let type, let context):
            return "\(path(context)) is null, expected \(Self.name(of: type))"
        @unknown default:
            return "\(error)"
        }
    }

    private static func name(of type: Any.Type) -> String {
        let name = String(describing: type)
        switch type {
        case is String.Type: return "a string"
        case is Int.Type, is Double.Type: return "a number"
        case is Bool.Type: return "a boolean"
        default: return name.hasPrefix("Array<") ? "an array" : "an object"
        }
    }
}
