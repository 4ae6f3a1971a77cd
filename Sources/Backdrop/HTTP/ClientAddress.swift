import HTTPTypes

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tells clients apart for the render queue's turns (``RenderGate``): the peer's IP address, or, when the peer is a
/// proxy named in `server.trustedProxies`, the address that proxy says it serves (`X-Real-IP`, else the last entry of
/// `X-Forwarded-For`, the one the proxy itself appended). Headers from any other peer are ignored, so a client cannot
/// pose as many.
package struct ClientAddress: Sendable {
    let trustedProxies: [IPRange]

    package init(trustedProxies: [IPRange]) {
        self.trustedProxies = trustedProxies
    }

    func client(peer: String?, headers: HTTPFields) -> RenderClient {
        guard let peer, let address = IPRange.bytes(peer) else { return .unknown }
        guard self.trustedProxies.contains(where: { $0.contains(address) }) else { return RenderClient(Self.normalised(address)) }
        if let real = headers[.xRealIP].flatMap({ IPRange.bytes($0.trimmed) }) { return RenderClient(Self.normalised(real)) }
        if let forwarded = headers[.xForwardedFor]?.split(separator: ",").last.flatMap({ IPRange.bytes(String($0).trimmed) }) {
            return RenderClient(Self.normalised(forwarded))
        }
        return RenderClient(Self.normalised(address))
    }

    private static func normalised(_ bytes: [UInt8]) -> String {
        guard bytes.count == 16 else { return bytes.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":")
    }
}

/// An IP address or a CIDR range (`10.0.0.0/8`, `fd00::/8`, `127.0.0.1`), as `server.trustedProxies` lists them.
/// IPv4-mapped IPv6 addresses (`::ffff:10.1.2.3`) count as their IPv4 address.
package struct IPRange: Sendable, Equatable {
    let network: [UInt8]
    let prefix: Int

    /// Nil when `text` is not an address or range.
    package init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = Self.bytes(String(parts[0])) else { return nil }
        let bits = address.count * 8
        if parts.count == 2 {
            guard let prefix = Int(parts[1]), (0...bits).contains(prefix), parts[1].allSatisfy(\.isNumber) else { return nil }
            self.prefix = prefix
        } else {
            self.prefix = bits
        }
        self.network = address
    }

    func contains(_ address: [UInt8]) -> Bool {
        guard address.count == self.network.count else { return false }
        var left = self.prefix
        for (a, b) in zip(address, self.network) where left > 0 {
            let mask: UInt8 = left >= 8 ? 0xFF : ~(0xFF >> UInt8(left))
            if a & mask != b & mask { return false }
            left -= 8
        }
        return true
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
    static let xRealIP = Self("X-Real-IP")!
    static let xForwardedFor = Self("X-Forwarded-For")!
}

extension String {
    fileprivate var trimmed: String {
        String(self.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
