import CaptureKitCore
import Foundation

/// The secrets in a media URL and the URL as it may be shown. Secrets are a URL's password, an
/// RTMP stream key (everything after the application), and any query value named like a key,
/// token, passphrase or password (SRT's `passphrase` and `streamid` among them). Shared by the
/// stream destinations and the network cameras, so a URL is redacted the same way wherever it
/// appears.
package enum URLSecrets {
    private static let secretQueryNames: Set<String> = ["passphrase", "streamid", "key", "token", "password", "passwd", "secret", "auth", "sig", "signature"]

    /// The secrets in `url`, as written and percent-decoded.
    package static func secrets(in url: String) -> [String] {
        guard let components = URLComponents(string: url) else { return userInfoPassword(in: url).map { [$0] } ?? [] }
        let isRTMP = components.scheme?.lowercased().hasPrefix("rtmp") ?? false
        var found: [String] = []
        if let password = components.password, !password.isEmpty {
            found.append(password)
            if let decoded = password.removingPercentEncoding { found.append(decoded) }
        }
        if isRTMP {
            let parts = components.path.split(separator: "/", omittingEmptySubsequences: true)
            // FFmpeg may split the rest into an instance and a play path: each part is secret.
            if parts.count > 1 { found += [parts.dropFirst().joined(separator: "/")] + parts.dropFirst().map(String.init) }
        }
        for item in components.queryItems ?? [] {
            guard let value = item.value, !value.isEmpty else { continue }
            if isRTMP || secretQueryNames.contains(item.name.lowercased()) {
                found.append(value)
                if let encoded = value.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) { found.append(encoded) }
            }
        }
        return found
    }

    /// Registers the secrets of `url` with ``CaptureLog`` (so no log line shows them) and
    /// returns the URL as it may be shown.
    package static func register(_ url: String) -> String {
        for secret in secrets(in: url) { CaptureLog.addSecret(secret) }
        return redact(url)
    }

    /// `url` as it may be shown: secrets replaced by `***`.
    package static func redact(_ url: String) -> String {
        guard var components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            // Unparsable (`rtsp://user:pw@[::1/cam`), but a password may still be in it.
            guard let password = userInfoPassword(in: url) else { return CaptureLog.redacted(url) }
            return CaptureLog.redacted(url.replacingOccurrences(of: ":\(password)@", with: ":***@"))
        }
        if components.password != nil { components.password = "***" }
        let isRTMP = scheme.hasPrefix("rtmp")
        if isRTMP {
            let parts = components.path.split(separator: "/", omittingEmptySubsequences: true)
            if parts.count > 1 { components.path = "/\(parts[0])/***" }
        }
        if let items = components.queryItems {
            components.queryItems = items.map { item in
                isRTMP || secretQueryNames.contains(item.name.lowercased()) ? URLQueryItem(name: item.name, value: "***") : item
            }
        }
        return (components.string ?? url).replacingOccurrences(of: "%2A%2A%2A", with: "***")
    }

    /// The `password` of `scheme://user:password@host…` found by position, for a URL that
    /// `URLComponents` cannot parse.
    private static func userInfoPassword(in url: String) -> String? {
        guard let start = url.range(of: "://") else { return nil }
        let rest = url[start.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { return nil }
        let password = String(authority[authority.index(after: colon)..<at])
        return password.isEmpty ? nil : password
    }
}
