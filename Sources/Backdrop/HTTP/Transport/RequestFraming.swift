import NIOHTTP1

/// What a request's head alone says about it, before any body: refusals that must not wait for a body (RFC 9112's
/// framing rules, a body declared over the limit, an expectation Backdrop cannot meet), and whether the client waits for
/// `100 Continue`.
enum RequestFraming {
    struct Refusal: Equatable {
        let status: HTTPResponseStatus
        let message: String
    }

    /// Why the request must be refused from its head alone, or nil.
    static func refusal(for head: HTTPRequestHead, maxBody: Int) -> Refusal? {
        let hosts = head.headers["host"]
        if head.version.major == 1, head.version.minor >= 1 {
            guard hosts.count == 1, let host = hosts.first else {
                return Refusal(status: .badRequest, message: hosts.isEmpty ? "an HTTP/1.1 request needs a Host header" : "more than one Host header")
            }
            guard self.isValidHost(host) else { return Refusal(status: .badRequest, message: "the Host header is not a host name") }
        } else if hosts.count > 1 || !(hosts.first.map(self.isValidHost) ?? true) {
            return Refusal(status: .badRequest, message: "the Host header is not a host name")
        }
        if head.version == .http1_0, head.headers.contains(name: "transfer-encoding") {
            return Refusal(status: .badRequest, message: "Transfer-Encoding is not defined for HTTP/1.0")
        }
        if let declared = head.headers["content-length"].first.flatMap(Int.init), declared > maxBody {
            return Refusal(status: .payloadTooLarge, message: "request bodies are limited to \(maxBody) bytes")
        }
        let expectations = head.headers["expect"]
        if !expectations.isEmpty, !self.expectsContinue(head) {
            return Refusal(status: .expectationFailed, message: "the only expectation understood is 100-continue")
        }
        return nil
    }

    /// Whether `head` announces a body (`Transfer-Encoding`, or a `Content-Length` other than 0).
    static func hasBody(_ head: HTTPRequestHead) -> Bool {
        head.headers.contains(name: "transfer-encoding") || head.headers["content-length"].contains { $0 != "0" }
    }

    /// `Expect: 100-continue`: the client waits (a while) for `100 Continue` before it sends its body.
    static func expectsContinue(_ head: HTTPRequestHead) -> Bool {
        let expectations = head.headers["expect"]
        return expectations.count == 1 && expectations[0].trimmingCharacters(in: .whitespaces).lowercased() == "100-continue"
    }

    /// RFC 3986's host (a name, an IPv4 address or a bracketed IP literal) with an optional port; empty is allowed
    /// (a request whose target has no authority).
    static func isValidHost(_ value: String) -> Bool {
        value.unicodeScalars.allSatisfy { scalar in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "-", ".", "_", "~", "!", "$", "&", "'", "(", ")", "*", "+", ",", ";", "=", "%", ":",
                "[", "]":
                true
            default:
                false
            }
        }
    }
}
