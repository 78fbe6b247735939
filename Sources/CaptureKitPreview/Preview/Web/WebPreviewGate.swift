import CaptureKit
import Glibc

/// What the web preview refuses before it reads a request's body or routes it, from the request
/// line and headers alone:
/// - a `Host` that is not an IP address, `localhost` or a name the options allow (403): a page
///   on another site that rebinds its DNS name to this address reaches the preview under that
///   name, never under an address;
/// - a missing or wrong access token (403), compared in constant time;
/// - a state-changing request (anything but GET and HEAD) whose `Origin` is not the preview
///   itself (403): another page cannot take photos or start recordings with a leaked token;
/// - a body (413): no route takes one, so none is read.
struct WebPreviewGate: Sendable {
    let token: String
    /// Lowercased host names allowed besides IP addresses and `localhost`.
    let allowedHostNames: Set<String>

    init(token: String, allowedHostNames: [String]) {
        self.token = token
        self.allowedHostNames = Set(allowedHostNames.map { $0.lowercased() })
    }

    /// The answer that turns `request` away, or nil to route it.
    func refusal(for request: WebPreviewServer.Request) -> WebPreviewServer.Response? {
        if let host = request.host, !isAllowed(host: Self.name(ofHost: host)) {
            return .text(403, "forbidden: this preview is not served under that host name")
        }
        guard let given = request.token, Self.constantTimeEqual(given, token) else {
            return .text(403, "forbidden: open the URL with its access token (?token=…)")
        }
        if !["GET", "HEAD"].contains(request.method), let origin = request.origin, !isSameOrigin(origin, host: request.host) {
            return .text(403, "forbidden: a page from another origin cannot control the preview")
        }
        if request.hasBody {
            return .text(413, "the preview takes no request bodies")
        }
        return nil
    }

    private func isAllowed(host name: String) -> Bool {
        name == "localhost" || Self.isAddress(name) || allowedHostNames.contains(name)
    }

    /// Whether `origin` (`http://host:port`) is the preview as the request reached it.
    private func isSameOrigin(_ origin: String, host: String?) -> Bool {
        guard let host, origin.lowercased().hasPrefix("http://") else { return false }
        return origin.dropFirst("http://".count).lowercased() == host.lowercased()
    }

    /// A `Host` header's name, without its port or an IPv6 literal's brackets, lowercased.
    static func name(ofHost host: String) -> String {
        let lowered = host.lowercased()
        if lowered.hasPrefix("["), let end = lowered.firstIndex(of: "]") {
            return String(lowered[lowered.index(after: lowered.startIndex)..<end])
        }
        return String(lowered.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }

    /// Whether `name` is an IPv4 or IPv6 literal (which no DNS can rebind).
    static func isAddress(_ name: String) -> Bool {
        var ipv4 = in_addr(), ipv6 = in6_addr()
        return inet_pton(AF_INET, name, &ipv4) == 1 || inet_pton(AF_INET6, name, &ipv6) == 1
    }

    /// Compares without stopping at the first difference, so timing tells nothing about the token.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}
