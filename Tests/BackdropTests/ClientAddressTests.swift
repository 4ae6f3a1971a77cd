import Foundation
import HTTPTypes
import Testing

@testable import Backdrop

/// Who a client is: the peer, or what a trusted proxy says; addresses grouped into networks; masks at every length.
@Suite("Client addresses")
struct ClientAddressTests {
    static func range(_ text: String) throws -> IPRange { try #require(IPRange(text)) }

    @Test func clientsAreTheirPeerUnlessThePeerIsATrustedProxy() throws {
        let headers: HTTPFields = [.xRealIP: "203.0.113.9", .xForwardedFor: "198.51.100.1, 192.0.2.77"]
        let untrusting = ClientAddress(trustedProxies: [])
        #expect(untrusting.client(peer: "10.0.0.5", headers: headers) == RequestClient("10.0.0.5"), "headers ignored")
        let trusting = ClientAddress(trustedProxies: [try Self.range("10.0.0.0/8"), try Self.range("::1")])
        #expect(trusting.client(peer: "10.0.0.5", headers: headers) == RequestClient("203.0.113.9"), "X-Real-IP first")
        #expect(trusting.client(peer: "11.0.0.5", headers: headers) == RequestClient("11.0.0.5"), "a peer outside the range")
        #expect(trusting.client(peer: "::1", headers: [.xRealIP: "not an address"]) == RequestClient("::/64"), "the peer, as its /64")
        #expect(
            trusting.client(peer: "::ffff:10.1.2.3", headers: [.xRealIP: "203.0.113.1"]) == RequestClient("203.0.113.1"),
            "IPv4-mapped addresses count as IPv4"
        )
        #expect(untrusting.client(peer: nil, headers: headers) == .unknown)
    }

    @Test func forwardedForIsReadFromTheRightPastTrustedProxies() throws {
        let trusting = ClientAddress(trustedProxies: [try Self.range("10.0.0.0/8")])
        func client(_ forwarded: String...) -> String {
            var headers = HTTPFields()
            for value in forwarded { headers.append(HTTPField(name: .xForwardedFor, value: value)) }
            return trusting.client(peer: "10.0.0.5", headers: headers).name
        }
        #expect(client("198.51.100.1, 192.0.2.77") == "192.0.2.77", "the hop the proxy appended")
        #expect(client("198.51.100.1, 192.0.2.77, 10.1.1.1") == "192.0.2.77", "a load balancer in front, trusted, skipped")
        #expect(client("192.0.2.77, 10.1.1.1, 10.2.2.2") == "192.0.2.77", "any number of trusted hops")
        #expect(client("198.51.100.1", "192.0.2.77") == "192.0.2.77", "several header lines read as one list")
        #expect(client("forged, 192.0.2.77") == "192.0.2.77", "what a client wrote to the left is never reached")
        #expect(client("10.3.3.3, 10.4.4.4") == "10.3.3.3", "all trusted: the farthest")
        #expect(client("198.51.100.1, junk, 10.1.1.1") == "10.1.1.1", "an entry that is no address ends the walk at the last hop")
        #expect(client("203.0.113.7:4444") == "203.0.113.7", "an address with a port")
        #expect(client("[2001:db8::1]:4444") == "2001:db8::/64", "a bracketed IPv6 address with a port")
        #expect(client(" [2001:db8:0:7::1] ") == "2001:db8:0:7::/64", "bracketed, spaces around")
        #expect(client("2001:db8::9") == "2001:db8::/64")
        #expect(client("203.0.113.7:") == "10.0.0.5", "a port must have digits")
        #expect(client("[2001:db8::1]x") == "10.0.0.5")
        #expect(client("[203.0.113.7]") == "10.0.0.5", "brackets only around IPv6")
    }

    @Test func clientsAreNetworks() throws {
        let headers = HTTPFields()
        let byDefault = ClientAddress(trustedProxies: [])
        #expect(byDefault.client(peer: "2001:db8:1:2:aaaa::1", headers: headers) == byDefault.client(peer: "2001:db8:1:2:ffff::9", headers: headers))
        #expect(byDefault.client(peer: "2001:db8:1:2::1", headers: headers).name == "2001:db8:1:2::/64")
        #expect(byDefault.client(peer: "2001:db8:1:3::1", headers: headers).name == "2001:db8:1:3::/64", "the next /64 is another client")
        #expect(byDefault.client(peer: "203.0.113.7", headers: headers).name == "203.0.113.7", "IPv4: one address")
        #expect(byDefault.client(peer: "203.0.113.8", headers: headers).name == "203.0.113.8")
        let wide = ClientAddress(trustedProxies: [], prefixIPv4: 24, prefixIPv6: 48)
        #expect(wide.client(peer: "203.0.113.7", headers: headers).name == "203.0.113.0/24")
        #expect(wide.client(peer: "203.0.113.250", headers: headers).name == "203.0.113.0/24")
        #expect(wide.client(peer: "203.0.114.1", headers: headers).name == "203.0.114.0/24")
        #expect(wide.client(peer: "2001:db8:1:ffff::1", headers: headers).name == "2001:db8:1::/48")
        let exact = ClientAddress(trustedProxies: [], prefixIPv4: 32, prefixIPv6: 128)
        #expect(exact.client(peer: "2001:db8::1", headers: headers).name == "2001:db8::1")
    }

    /// Each range against the addresses just inside and just outside it.
    @Test(
        "masks at every prefix length",
        arguments: [
            ("172.16.0.0/12", "172.31.255.255", "172.32.0.0"), ("172.16.0.0/12", "172.17.0.1", "172.15.255.255"),
            ("10.20.16.0/20", "10.20.31.255", "10.20.32.0"), ("10.20.16.0/20", "10.20.16.0", "10.20.15.255"),
            ("192.0.2.4/31", "192.0.2.5", "192.0.2.6"), ("192.0.2.4/31", "192.0.2.4", "192.0.2.3"),
            ("192.0.2.4/32", "192.0.2.4", "192.0.2.5"), ("0.0.0.0/0", "255.255.255.255", "::1"),
            ("2001:db8:0:1000::/52", "2001:db8:0:1fff:ffff::1", "2001:db8:0:2000::"),
            ("2001:db8:0:1000::/52", "2001:db8:0:1000::", "2001:db8:0:fff:ffff:ffff:ffff:ffff"),
            ("2001:db8:0:ab00::/56", "2001:db8:0:abff::1", "2001:db8:0:ac00::"),
            ("2001:db8::2/127", "2001:db8::3", "2001:db8::4"), ("2001:db8::2/127", "2001:db8::2", "2001:db8::1"),
            ("::ffff:172.16.0.0/108", "172.31.0.1", "172.32.0.1"),
            ("172.16.0.0/12", "::ffff:172.20.1.1", "::ffff:172.32.1.1"),
        ]
    )
    func masks(_ range: String, inside: String, outside: String) throws {
        let parsed = try #require(IPRange(range))
        #expect(parsed.contains(try #require(IPRange.bytes(inside))), "\(inside) in \(range)")
        #expect(!parsed.contains(try #require(IPRange.bytes(outside))), "\(outside) not in \(range)")
    }
}
