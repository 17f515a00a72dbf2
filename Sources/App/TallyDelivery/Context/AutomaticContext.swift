import Foundation
import TallyCore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The facts the platform tells about the app and the device, read once at launch.
struct AutomaticContext: Sendable, Hashable {
    var appName: String?
    var appVersion: String?
    var appBuild: String?
    var appNamespace: String?
    var context: EventContext

    /// Reads the bundle, `ProcessInfo`, the device model, the locale and the time zone;
    /// `configuration`'s app fields win over the bundle's, its overrides over everything.
    init(_ configuration: ContextConfiguration, libraryVersion: String) {
        let info = Bundle.main.infoDictionary ?? [:]
        appName =
            configuration.appName ?? info["CFBundleDisplayName"] as? String ?? info["CFBundleName"] as? String
            ?? ProcessInfo.processInfo.processName
        appVersion = configuration.appVersion ?? info["CFBundleShortVersionString"] as? String
        appBuild = configuration.appBuild ?? info["CFBundleVersion"] as? String
        appNamespace = Bundle.main.bundleIdentifier
        guard configuration.automatic else {
            context = configuration.overrides ?? EventContext()
            return
        }
        let version = ProcessInfo.processInfo.operatingSystemVersion
        let osVersion = "\(version.majorVersion).\(version.minorVersion).\(version.patchVersion)"
        let locale = Locale.current.identifier.replacingOccurrences(of: "_", with: "-")
        var members: [String: PropertyValue] = [
            "app": Self.object([
                ("name", appName), ("version", appVersion), ("build", appBuild), ("namespace", appNamespace),
            ]),
            "os": Self.object([("name", Self.osName), ("version", osVersion)]),
            "device": Self.object([
                ("model", Self.deviceModel), ("type", Self.platform), ("manufacturer", Self.manufacturer),
            ]),
            "timezone": .string(TimeZone.current.identifier),
            "library": Self.object([("name", "tally"), ("version", libraryVersion)]),
        ]
        var context = EventContext(
            appVersion: appVersion,
            appBuild: appBuild,
            platform: Self.platform,
            osVersion: osVersion,
            locale: locale
        )
        if let overrides = configuration.overrides {
            context.appVersion = overrides.appVersion ?? context.appVersion
            context.appBuild = overrides.appBuild ?? context.appBuild
            context.platform = overrides.platform ?? context.platform
            context.osVersion = overrides.osVersion ?? context.osVersion
            context.locale = overrides.locale ?? context.locale
            overrides.additional.forEach { key, value in members[key] = value }
        }
        context.additional = EventProperties(members)
        self.context = context
    }

    /// A JSON object of the members that are set.
    static func object(_ members: [(String, String?)]) -> PropertyValue {
        .json(
            RawJSON(
                .object(members.compactMap { key, value in value.map { JSONMember(key: key, value: .string($0)) } })
            )
        )
    }

    /// Segment's `os.name`.
    static var osName: String {
        #if os(iOS)
            "iOS"
        #elseif os(macOS)
            "macOS"
        #elseif os(tvOS)
            "tvOS"
        #elseif os(watchOS)
            "watchOS"
        #elseif os(visionOS)
            "visionOS"
        #elseif os(Linux)
            "Linux"
        #else
            "unknown"
        #endif
    }

    /// tally's `platform`: the OS name in lowercase (`ios`, `macos`, `linux`).
    static var platform: String { osName.lowercased() }

    static var manufacturer: String? {
        #if canImport(Darwin)
            "Apple"
        #else
            nil
        #endif
    }

    /// `iPhone15,2`, `Mac14,2` (`hw.machine`; on a Mac `hw.model` names the model), `x86_64` on Linux.
    static var deviceModel: String? {
        #if canImport(Darwin)
            #if os(macOS)
                let name = "hw.model"
            #else
                let name = "hw.machine"
            #endif
            var size = 0
            guard sysctlbyname(name, nil, &size, nil, 0) == 0, size > 0 else { return nil }
            var bytes = [CChar](repeating: 0, count: size)
            guard sysctlbyname(name, &bytes, &size, nil, 0) == 0 else { return nil }
            return String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #else
            var system = utsname()
            guard uname(&system) == 0 else { return nil }
            return withUnsafeBytes(of: &system.machine) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
        #endif
    }
}
