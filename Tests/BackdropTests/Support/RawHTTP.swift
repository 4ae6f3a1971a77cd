import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A minimal HTTP/1.1 client over one socket, for what client libraries hide: several requests sent in one write
/// (pipelining), and the exact bytes of each response.
enum RawHTTP {
    struct Response {
        let status: Int
        /// Header names lowercased, in order.
        let headers: [(name: String, value: String)]
        let body: [UInt8]
        /// The head's exact bytes, blank line aside.
        var head = [UInt8]()

        func header(_ name: String) -> String? { self.headers.first { $0.name == name.lowercased() }?.value }

        /// Headers as a dictionary, without those that name the moment.
        var stableHeaders: [String: String] {
            Dictionary(self.headers.filter { $0.name != "date" }.map { ($0.name, $0.value) }, uniquingKeysWith: { $0 + ", " + $1 })
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Sends each of `texts` (whole requests, as they are) on one connection to localhost:`port` once the answer to the
    /// one before has been read whole, and reads one answer to each (`bodyless` for a HEAD).
    static func inTurn(port: Int, _ texts: [String], bodyless: Bool = false) throws -> [Response] {
        let socket = try self.connect(port: port)
        defer { close(socket) }
        var reader = Reader(socket: socket)
        return try texts.map { text in
            try self.send(socket, text)
            return try reader.response(bodyless: bodyless)
        }
    }

    /// Sends `text` (requests as they are) in one write on one connection to localhost:`port`, and reads `count`
    /// answers.
    static func pipelined(port: Int, _ text: String, count: Int) throws -> [Response] {
        let socket = try self.connect(port: port)
        defer { close(socket) }
        try self.send(socket, text)
        var reader = Reader(socket: socket)
        return try (0..<count).map { _ in try reader.response(bodyless: false) }
    }

    /// Sends `requests` (request heads without the final blank line, e.g. `GET /x`, plus any header lines) in one
    /// write on one connection to localhost:`port`, and reads one response per request. Every read is bounded by a
    /// 12-second timeout (``TestApp/patientDeadline``: 3 times the slowest request of the suite on two cores).
    static func exchange(port: Int, _ requests: [(method: String, target: String, headers: [String])]) throws -> [Response] {
        let socket = try self.connect(port: port)
        defer { close(socket) }
        var text = ""
        for request in requests {
            text += "\(request.method) \(request.target) HTTP/1.1\r\nHost: localhost\r\n"
            for line in request.headers { text += "\(line)\r\n" }
            text += "\r\n"
        }
        try self.send(socket, text)
        var reader = Reader(socket: socket)
        return try requests.map { request in try reader.response(bodyless: request.method == "HEAD") }
    }

    /// Sends `request` on a new connection to 127.0.0.1:`port` made from the address `source` (any of 127.0.0.0/8),
    /// and reads its response, waiting 60 s at most for each read: requests held in a render queue wait their turn
    /// while the whole suite loads the machine.
    /// `body`, a blocking exchange, on a thread of its own, so that it holds no thread of the concurrency pool, which
    /// the server under test needs (Dispatch's pool grows by about a thread a second; this machine's has two).
    static func onItsOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }

    /// ``exchange(port:from:_:_:_:)`` of a GET on a thread of its own (``onItsOwnThread(_:)``).
    static func exchangeOnItsOwnThread(port: Int, from source: String, _ target: String, _ headers: [String] = []) async throws -> Response {
        try await Self.onItsOwnThread {
            do {
                return try RawHTTP.exchange(port: port, from: source, "GET", target, headers)
            } catch {
                throw RawHTTP.Failure(description: "\(target) from \(source): \(error)")
            }
        }
    }

    static func exchange(port: Int, from source: String, _ method: String, _ target: String, _ headers: [String] = []) throws -> Response {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket failed") }
        defer { close(socket) }
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        func address(_ text: String, _ port: Int) -> sockaddr_in {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, text, &address.sin_addr)
            return address
        }
        var local = address(source, 0)
        var remote = address("127.0.0.1", port)
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        guard withUnsafePointer(to: &local, { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, size) } }) == 0,
            withUnsafePointer(to: &remote, { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, size) } }) == 0
        else { throw Failure(description: "cannot connect to 127.0.0.1:\(port) from \(source): \(String(cString: strerror(errno)))") }
        return try self.request(on: socket, method, target, headers)
    }

    static func connect(port: Int) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo("localhost", String(port), &hints, &list) == 0 else { throw Failure(description: "cannot resolve localhost") }
        defer { freeaddrinfo(list) }
        var candidate = list
        while let info = candidate {
            let socket = Glibc.socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            if socket >= 0 {
                var timeout = timeval(tv_sec: 12, tv_usec: 0)
                setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                if Glibc.connect(socket, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return socket }
                close(socket)
            }
            candidate = info.pointee.ai_next
        }
        throw Failure(description: "cannot connect to localhost:\(port)")
    }

    /// Sends `text` as it is on `socket`.
    static func send(_ socket: Int32, _ text: String) throws {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw Failure(description: "send failed: \(String(cString: strerror(errno)))") }
            sent += count
        }
    }

    /// Sends one request on an open `socket` and reads its response.
    static func request(on socket: Int32, _ method: String, _ target: String, _ headers: [String] = []) throws -> Response {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: localhost\r\n"
        for line in headers { text += "\(line)\r\n" }
        try self.send(socket, text + "\r\n")
        var reader = Reader(socket: socket)
        return try reader.response(bodyless: method == "HEAD")
    }

    static func close(_ socket: Int32) {
        _ = Glibc.close(socket)
    }

    /// Everything the server sends until it closes the connection; fails if it does not within the read timeout.
    static func readToEnd(_ socket: Int32) throws -> [UInt8] {
        var received = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count == 0 { return received }
            guard count > 0 else { throw Failure(description: "read timed out before the server closed the connection") }
            received += chunk[..<count]
        }
    }

    private struct Reader {
        let socket: Int32
        var buffer = [UInt8]()

        mutating func fill() throws {
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { recv(self.socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw Failure(description: count == 0 ? "connection closed early" : "read timed out") }
            self.buffer += chunk[..<count]
        }

        mutating func response(bodyless: Bool) throws -> Response {
            let separator: [UInt8] = [13, 10, 13, 10]
            var end: Int?
            while end == nil {
                end = self.buffer.indices.dropLast(3).first { Array(self.buffer[$0..<($0 + 4)]) == separator }
                if end == nil { try self.fill() }
            }
            guard let headEnd = end, let head = String(bytes: self.buffer[..<headEnd], encoding: .utf8) else {
                throw Failure(description: "unreadable head")
            }
            let lines = head.components(separatedBy: "\r\n")
            guard let status = lines.first?.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
                throw Failure(description: "bad status line \(lines.first ?? "")")
            }
            let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }
            self.buffer.removeFirst(headEnd + 4)
            let length = bodyless || status == 304 ? 0 : headers.first { $0.name == "content-length" }.flatMap { Int($0.value) } ?? 0
            while self.buffer.count < length { try self.fill() }
            let body = Array(self.buffer[..<length])
            self.buffer.removeFirst(length)
            return Response(status: status, headers: headers, body: body, head: Array(head.utf8))
        }
    }
}
