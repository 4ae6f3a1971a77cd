#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
