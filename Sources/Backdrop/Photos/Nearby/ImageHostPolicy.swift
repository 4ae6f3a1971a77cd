import Foundation
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Which URLs photos may be downloaded from: a source's image hosts (Flickr's `*.staticflickr.com`, Wikimedia's
/// `upload.wikimedia.org` and `thumb.wikimedia.org`), over HTTPS, and hosts the configuration adds (for tests or
/// mirrors). A URL is read as a browser reads it (``WebURL``): userinfo and backslashes are refused. A source's hosts must
/// not resolve to loopback, private or link-local addresses; configured hosts are trusted as the operator named them.
struct ImageHostPolicy: Sendable {
    let extraHosts: Set<String>
    /// The source's image domains: each, and any host under it.
    let domains: [String]
    /// The source's name, for errors.
    let name: String
    let resolve: @Sendable (String) async -> [String]

    package init(
        extraHosts: [String],
        domains: [String] = ["staticflickr.com"],
        name: String = "Flickr",
        resolve: (@Sendable (String) async -> [String])? = nil
    ) {
        self.extraHosts = Set(extraHosts.map { $0.lowercased() })
        self.domains = domains
        self.name = name
        self.resolve = resolve ?? { host in await Self.systemResolve(host) }
    }

    /// Wikimedia's media hosts: originals on `upload`, thumbnails on `thumb` since 2026 (T427465, T434821).
    static let wikimediaDomains = ["upload.wikimedia.org", "thumb.wikimedia.org"]

    /// Throws `DownloadError` when `url` may not be fetched.
    func check(_ url: WebURL) async throws {
        let (scheme, host) = (url.scheme, url.host)
        if self.extraHosts.contains(host) { return }
        guard self.domains.contains(where: url.isOn) else {
            throw DownloadError(.refused, "host \(host) is not a \(self.name) image host")
        }
        guard scheme == "https" else { throw DownloadError(.refused, "\(self.name) images are fetched over HTTPS only") }
        let addresses = await self.resolve(host)
        guard !addresses.isEmpty else { throw DownloadError(.failed, "host \(host) does not resolve") }
        if let address = addresses.first(where: { !Self.isPublic($0) }) {
            throw DownloadError(.refused, "host \(host) resolves to non-public address \(address)")
        }
    }

    /// False for loopback, private, link-local, shared, multicast, reserved and unspecified addresses.
    package static func isPublic(_ address: String) -> Bool {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            return self.isPublicIPv4(UInt32(bigEndian: v4.s_addr))
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, address, &v6) == 1 else { return false }
        let b = withUnsafeBytes(of: v6) { Array($0) }
        if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xFF && b[11] == 0xFF {  // IPv4-mapped
            return self.isPublicIPv4(UInt32(b[12]) << 24 | UInt32(b[13]) << 16 | UInt32(b[14]) << 8 | UInt32(b[15]))
        }
        if b[0..<15].allSatisfy({ $0 == 0 }) { return false }  // :: and ::1
        if b[0] & 0xFE == 0xFC { return false }  // fc00::/7 unique local
        if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return false }  // fe80::/10 link-local
        if b[0] == 0xFF { return false }  // multicast
        return true
    }

    private static func isPublicIPv4(_ a: UInt32) -> Bool {
        let blocked: [(UInt32, UInt32)] = [
            (0x0000_0000, 8), (0x0A00_0000, 8), (0x6440_0000, 10), (0x7F00_0000, 8), (0xA9FE_0000, 16), (0xAC10_0000, 12),
            (0xC000_0000, 24), (0xC0A8_0000, 16), (0xC612_0000, 15), (0xE000_0000, 4), (0xF000_0000, 4),
        ]
        return !blocked.contains { network, bits in a >> (32 - bits) == network >> (32 - bits) }
    }

    /// Two threads for the system's resolver alone: a slow DNS server holds neither the event loops nor the shared
    /// blocking pool (``NIOThreadPool/singleton``, where files are read). Started once, like that pool, for the process.
    private static let resolverThreads: NIOThreadPool = {
        let threads = NIOThreadPool(numberOfThreads: 2)
        threads.start()
        return threads
    }()

    /// Every address `host` resolves to, looked up on the resolver's own threads.
    static func systemResolve(_ host: String) async -> [String] {
        (try? await Self.resolverThreads.runIfActive { () -> [String] in
            var hints = addrinfo()
            #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            #else
            hints.ai_socktype = SOCK_STREAM
            #endif
            var list: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
            defer { freeaddrinfo(list) }
            var result = [String]()
            var node: UnsafeMutablePointer<addrinfo>? = first
            while let current = node {
                var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
                if let address = current.pointee.ai_addr {
                    if current.pointee.ai_family == AF_INET {
                        address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                            var a = $0.pointee.sin_addr
                            _ = inet_ntop(AF_INET, &a, &buffer, socklen_t(buffer.count))
                        }
                    } else if current.pointee.ai_family == AF_INET6 {
                        address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                            var a = $0.pointee.sin6_addr
                            _ = inet_ntop(AF_INET6, &a, &buffer, socklen_t(buffer.count))
                        }
                    }
                }
                let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if !text.isEmpty { result.append(text) }
                node = current.pointee.ai_next
            }
            return result
        }) ?? []
    }
}
