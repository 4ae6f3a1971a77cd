import AsyncHTTPClient
import Foundation
import NIOCore

/// Downloads from allowed hosts only, following at most three redirects (each checked again), streaming the
/// body under a size cap, within one deadline for the whole exchange, and accepting only JPEG.
struct ImageDownloader: ImageDownloading {
    let http: HTTPClient
    let policy: ImageHostPolicy
    let maxBytes: Int
    let timeout: Duration
    let userAgent: String
    /// The hosts that asked to wait, shared with every downloader of the source.
    let pauses: MediaHostPauses
    /// The requests in flight to the source's media hosts, shared with every downloader of the source.
    let limiter: MediaLimiter
    /// The bytes a second the source's media hosts are read at, shared with every downloader of the source; nil: any.
    let rate: MediaByteRate?
    /// Whose downloads these are: a request's, or the work after answers (thumbnails for looks).
    let lane: MediaLimiter.Lane
    /// The media hosts' hourly budget, shared with every downloader of the source (and every replica); nil: none.
    let budget: (any ClusterCoordinator)?
    /// Each client's share of that budget (a tenth, as for searches), kept beside it; nil: none.
    let shares: ClientShares?
    let maxRedirects = 3

    package init(
        http: HTTPClient,
        policy: ImageHostPolicy,
        maxBytes: Int,
        timeout: Duration,
        userAgent: String = "Backdrop/\(Backdrop.version)",
        pauses: MediaHostPauses = MediaHostPauses(),
        limiter: MediaLimiter = MediaLimiter(limit: 8),
        rate: MediaByteRate? = nil,
        lane: MediaLimiter.Lane = .answer,
        budget: (any ClusterCoordinator)? = nil,
        shares: ClientShares? = nil
    ) {
        self.http = http
        self.policy = policy
        self.maxBytes = maxBytes
        self.timeout = timeout
        self.userAgent = userAgent
        self.pauses = pauses
        self.limiter = limiter
        self.rate = rate
        self.lane = lane
        self.budget = budget
        self.shares = shares
    }

    /// The same downloader with a cap of `bytes`, in `lane` (thumbnails: ``CandidateLooks/maxBytes``, the background).
    func capped(at bytes: Int, lane: MediaLimiter.Lane) -> ImageDownloader {
        ImageDownloader(
            http: self.http,
            policy: self.policy,
            maxBytes: min(bytes, self.maxBytes),
            timeout: self.timeout,
            userAgent: self.userAgent,
            pauses: self.pauses,
            limiter: self.limiter,
            rate: self.rate,
            lane: lane,
            budget: self.budget,
            shares: self.shares
        )
    }

    /// The image at `address` for `client`'s request: one request of its share reserved first (refused as
    /// ``DownloadError/Kind/throttled`` when the share is spent: the next source or stock, no photo marked unusable),
    /// and given back when no request was made (the budget spent, the host paused).
    func download(_ address: String, for client: RequestClient) async throws -> [UInt8] {
        guard let shares = self.shares, let budget = self.budget else { return try await self.download(address) }
        let sharing = budget.sharing()
        guard let reservation = await shares.reserve(client, through: sharing) else {
            throw DownloadError(.throttled, "this client's share of the hour's media requests is spent")
        }
        do {
            let bytes = try await self.download(address)
            _ = reservation.used()
            return bytes
        } catch let error as DownloadError where error.kind == .throttled {
            await shares.settle(reservation, through: sharing)  // no request made: given back
            throw error
        } catch {
            _ = reservation.used()
            throw error
        }
    }

    /// The image at `address`, within `timeout` for the whole exchange: redirects, head and every byte of the body.
    package func download(_ address: String) async throws -> [UInt8] {
        if let budget = self.budget, await !budget.sharing().takeCall() {
            throw DownloadError(.throttled, "the hour's budget of media requests is spent")  // not the photo's fault
        }
        do {
            // The wait for a place among the source's requests in flight counts against the deadline too.
            return try await withDeadline(self.timeout) { try await self.limiter.run(self.lane) { try await self.fetch(address) } }
        } catch is DeadlinePassed {
            throw DownloadError(.failed, "download took longer than \(Int(total: self.timeout / .milliseconds(1))) ms")
        }
    }

    private func fetch(_ address: String) async throws -> [UInt8] {
        let deadline = NIODeadline.now() + TimeAmount(self.timeout)
        guard var url = WebURL(address) else { throw DownloadError(.refused, "not a web URL: \(PlainText.line(address, limit: 120))") }
        for hop in 0...self.maxRedirects {
            try await self.policy.check(url)
            if let left = await self.pauses.remaining(url.host) {
                throw DownloadError(.throttled, "image host \(url.host) asked to wait: \(Int(total: left.rounded(.up))) s left")
            }
            var request = HTTPClientRequest(url: url.text)
            request.headers.add(name: "User-Agent", value: self.userAgent)
            let response: HTTPClientResponse
            do {
                response = try await self.http.execute(request, deadline: deadline)
            } catch {
                throw DownloadError(.failed, "download failed: \(error)")
            }
            if (300..<400).contains(Int(response.status.code)) {
                _ = try? await response.body.collect(upTo: 64 << 10)
                guard hop < self.maxRedirects else { throw DownloadError(.refused, "more than \(self.maxRedirects) redirects") }
                guard let location = response.headers.first(name: "location"), let next = url.resolving(location) else {
                    throw DownloadError(.failed, "redirect without a usable Location")
                }
                url = next
                continue
            }
            if response.status.code == 429 || response.status.code == 503 {
                _ = try? await response.body.collect(upTo: 64 << 10)
                await self.pauses.pause(url.host, seconds: CommonsClient.retryAfter(response.headers))
                throw DownloadError(.throttled, "image host \(url.host) answered HTTP \(response.status.code)")
            }
            guard response.status == .ok else {
                _ = try? await response.body.collect(upTo: 64 << 10)
                throw DownloadError(.failed, "image host answered HTTP \(response.status.code)")
            }
            if let length = response.headers.first(name: "content-length").flatMap({ Int($0) }), length > self.maxBytes {
                throw DownloadError(.unacceptable, "image is \(length) bytes, over the cap of \(self.maxBytes)")
            }
            var bytes = [UInt8]()
            do {
                for try await chunk in response.body {
                    guard bytes.count + chunk.readableBytes <= self.maxBytes else {
                        throw DownloadError(.unacceptable, "image is over the cap of \(self.maxBytes) bytes")
                    }
                    bytes.append(contentsOf: chunk.readableBytesView)
                    try await self.rate?.spend(chunk.readableBytes)
                }
            } catch let error as DownloadError {
                throw error
            } catch {
                throw DownloadError(.failed, "download failed: \(error)")
            }
            let type = response.headers.first(name: "content-type")?.lowercased() ?? ""
            guard JPEGDecoder.isJPEG(bytes) else {
                throw DownloadError(.unacceptable, "not a JPEG (Content-Type \(type.prefix(60)))")
            }
            return bytes
        }
        throw DownloadError(.refused, "more than \(self.maxRedirects) redirects")
    }
}

/// Fetches photo bytes. The seam tests can replace.
protocol ImageDownloading: Sendable {
    /// Throws `DownloadError`.
    func download(_ url: String) async throws -> [UInt8]
    /// The same for `client`'s request, charged to its share of the media budget where there is one.
    func download(_ url: String, for client: RequestClient) async throws -> [UInt8]
}

extension ImageDownloading {
    func download(_ url: String, for client: RequestClient) async throws -> [UInt8] { try await self.download(url) }
}
