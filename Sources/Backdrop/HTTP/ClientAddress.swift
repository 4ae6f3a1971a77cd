import HTTPTypes

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

    func client(peer: String?, headers: HTTPFields) -> RenderClient {
        guard let peer, let address = IPRange.bytes(peer) else { return .unknown }
        let client = self.address(peer: address, headers: headers)
        return RenderClient(IPRange.text(client, prefix: client.count == 4 ? self.prefixIPv4 : self.prefixIPv6))
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

/// An IP address or a CIDR range (`10.0.0.0/8`, `fd00::/8`, `127.0.0.1`), as `server.trustedProxies` lists them.
/// IPv4-mapped IPv6 addresses (`::ffff:10.1.2.3`, `::ffff:10.0.0.0/104`) count as their IPv4 address and range.
package struct IPRange: Sendable, Equatable {
    let network: [UInt8]
    let prefix: Int

    /// Nil when `text` is not an address or range.
    package init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = Self.bytes(String(parts[0])) else { return nil }
        let bits = address.count * 8
        // An IPv4-mapped range (`::ffff:10.0.0.0/104`) is written with IPv6's prefix lengths.
        let mapped = address.count == 4 && parts[0].contains(":") ? 96 : 0
        if parts.count == 2 {
            guard let prefix = Int(parts[1]), (mapped...(mapped + bits)).contains(prefix), parts[1].allSatisfy(\.isNumber) else { return nil }
            self.prefix = prefix - mapped
        } else {
            self.prefix = bits
        }
        self.network = address
    }

    func contains(_ address: [UInt8]) -> Bool {
        guard address.count == self.network.count else { return false }
        return Self.masked(address, prefix: self.prefix) == Self.masked(self.network, prefix: self.prefix)
    }

    /// `address` with every bit past the first `prefix` cleared.
    static func masked(_ address: [UInt8], prefix: Int) -> [UInt8] {
        address.enumerated().map { index, byte in
            let left = prefix - index * 8
            return left >= 8 ? byte : left <= 0 ? 0 : byte & ~(0xFF >> UInt8(left))
        }
    }

    /// The network of `prefix` bits that holds `address`, written as the address alone when the prefix is all of it
    /// (`203.0.113.7`) and as a range otherwise (`203.0.113.0/24`, `2001:db8:0:1::/64`).
    static func text(_ address: [UInt8], prefix: Int) -> String {
        let bits = address.count * 8
        let network = Self.masked(address, prefix: min(prefix, bits))
        var buffer = [CChar](repeating: 0, count: 64)
        let written = network.withUnsafeBytes { bytes in
            inet_ntop(network.count == 4 ? AF_INET : AF_INET6, bytes.baseAddress, &buffer, socklen_t(buffer.count)) != nil
        }
        let text = written ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "unknown"
        return prefix >= bits ? text : "\(text)/\(prefix)"
    }

    /// The address's bytes: 4 for IPv4 (and IPv4-mapped IPv6), 16 for IPv6; nil when `text` is not an address.
    static func bytes(_ text: String) -> [UInt8]? {
        guard !text.isEmpty, text.utf8.count <= 64 else { return nil }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF { return Array(bytes[12...]) }
        return bytes
    }
}

extension HTTPField.Name {
    static let xRealIP = BackdropHeaders.realIP
    static let xForwardedFor = BackdropHeaders.forwardedFor
}
