import HTTPTypes

/// Tells clients apart for the render queue's turns (``RenderGate``). A client is a network, not an address: its IPv4
/// address cut to `server.clientPrefixIPv4` bits (32 by default: one address) or its IPv6 address cut to
/// `server.clientPrefixIPv6` (64 by default: the subnet one host or home line is given). Which address:
/// - the peer's, unless the peer is a proxy named in `server.trustedProxies`;
/// - from a trusted peer, its `X-Real-IP` (the routers Backdrop ships set it to their own peer, replacing whatever the
///   client sent);
/// - from a trusted peer without `X-Real-IP`, `X-Forwarded-For` read from the right, past every trusted proxy, to the
///   right-most address that is not one (as nginx's realip module reads it): what a client wrote to its left is never
///   reached. Entries may carry a port (`203.0.113.7:4444`, `[2001:db8::1]:4444`); an entry that is not an address
///   ends the walk at the last trusted hop.
/// Headers from any other peer are ignored, so a client cannot pose as many.
struct ClientAddress: Sendable {
    let trustedProxies: [IPRange]
    let prefixIPv4: Int
    let prefixIPv6: Int

    package init(trustedProxies: [IPRange], prefixIPv4: Int = 32, prefixIPv6: Int = 64) {
        self.trustedProxies = trustedProxies
        self.prefixIPv4 = prefixIPv4
        self.prefixIPv6 = prefixIPv6
    }

    func client(peer: String?, headers: HTTPFields) -> RequestClient {
        guard let peer, let address = IPRange.bytes(peer) else { return .unknown }
        let client = self.address(peer: address, headers: headers)
        return RequestClient(IPRange.text(client, prefix: client.count == 4 ? self.prefixIPv4 : self.prefixIPv6))
    }

    /// Whether `peer` (an address as the socket gives it) is a trusted proxy.
    func trusts(peer: String?) -> Bool {
        guard let peer, let address = IPRange.bytes(peer) else { return false }
        return self.trusts(address)
    }

    private func trusts(_ address: [UInt8]) -> Bool {
        self.trustedProxies.contains { $0.contains(address) }
    }

    private func address(peer: [UInt8], headers: HTTPFields) -> [UInt8] {
        guard self.trusts(peer) else { return peer }
        if let real = headers[.xRealIP].flatMap(Self.entry) { return real }
        var hop = peer
        let forwarded = headers[values: .xForwardedFor].flatMap { $0.split(separator: ",") }
        for text in forwarded.reversed() {
            guard let address = Self.entry(Substring(text)) else { break }
            hop = address
            if !self.trusts(address) { break }
        }
        return hop
    }

    /// One address as proxies write it: bare, `v4:port`, `[v6]` or `[v6]:port`, spaces around it ignored.
    static func entry(_ text: some StringProtocol) -> [UInt8]? {
        let trimmed = text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed()
        var address = String(trimmed)
        if address.hasPrefix("[") {
            guard let close = address.firstIndex(of: "]") else { return nil }
            let rest = address[address.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isNumber) && rest.count > 1) else { return nil }
            address = String(address[address.index(after: address.startIndex)..<close])
            guard address.contains(":") else { return nil }
        } else if address.filter({ $0 == ":" }).count == 1 {
            let parts = address.split(separator: ":", omittingEmptySubsequences: false)
            guard parts[1].allSatisfy(\.isNumber), !parts[1].isEmpty, parts[0].contains(".") else { return nil }
            address = String(parts[0])
        }
        return IPRange.bytes(address)
    }
}

extension Settings.Server {
    /// How this server tells clients apart.
    var clientAddress: ClientAddress {
        ClientAddress(trustedProxies: self.trustedProxies, prefixIPv4: self.clientPrefixIPv4, prefixIPv6: self.clientPrefixIPv6)
    }
}

extension HTTPField.Name {
    static let xRealIP = BackdropHeaders.realIP
    static let xForwardedFor = BackdropHeaders.forwardedFor
}
