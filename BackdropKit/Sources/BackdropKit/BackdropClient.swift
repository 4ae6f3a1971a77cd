import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A Backdrop service, as an app sees it: which background a place gets and the URLs of its images.
///
///     let client = BackdropClient(baseURL: URL(string: "https://backdrop.example.com")!)
///     let background = try await client.background(at: .coordinate(latitude: 48.85, longitude: 2.35),
///                                                  size: CGSize(width: 390, height: 844), scale: 3)
///     let sharp = background.images.url(.sharp)    // a cell URL in the best format this device decodes
public struct BackdropClient: Sendable {
    /// The service, with any path prefix it is served under (`https://example.com/backdrop`).
    public let baseURL: URL
    public let session: URLSession
    /// How long a call may take in all, connection included.
    public let timeout: TimeInterval
    /// The formats the app decodes, which ``Background/Images/format`` and ``Background/Images/url(_:)`` choose from.
    public let formats: [ImageFormat]

    public init(baseURL: URL, session: URLSession = .shared, timeout: TimeInterval = 10, formats: [ImageFormat] = ImageFormat.decodableHere) {
        self.baseURL = baseURL
        self.session = session
        self.timeout = timeout
        self.formats = formats
    }

    /// The background `place` gets in the current window, its image URLs sized for a view of `size` points on a
    /// screen of `scale` pixels a point (within the API's limits, see ``PixelSize``: asked as points and `dpr` when
    /// the scale is 1.5, 2 or 3), in the light effect's `style`;
    /// `variant` N (0 to 9) asks for the N-th of the place's photos instead of the chosen one; `crop` `.centre` crops
    /// at the photo's centre instead of around its subject.
    public func background(
        at place: Place,
        size: CGSize,
        scale: CGFloat = 1,
        style: BackgroundStyle = .light,
        variant: Int = 0,
        crop: BackgroundCrop = .attention
    ) async throws(BackdropError) -> Background {
        try await self.background(
            at: place,
            pixels: PixelSize(width: Double(size.width), height: Double(size.height), scale: Double(scale)),
            style: style,
            variant: variant,
            crop: crop
        )
    }

    /// The background `place` gets in the current window, its images `pixels` in size.
    public func background(
        at place: Place,
        pixels: PixelSize,
        style: BackgroundStyle = .light,
        variant: Int = 0,
        crop: BackgroundCrop = .attention
    ) async throws(BackdropError) -> Background {
        let query =
            place.queryItems + (variant != 0 ? [URLQueryItem(name: "variant", value: String(variant))] : []) + [
                URLQueryItem(name: "width", value: String(pixels.query.width)),
                URLQueryItem(name: "height", value: String(pixels.query.height)),
            ] + (pixels.query.dpr.map { [URLQueryItem(name: "dpr", value: $0)] } ?? []) + [
                URLQueryItem(name: "style", value: style.rawValue)
            ] + (crop != .attention ? [URLQueryItem(name: "crop", value: crop.rawValue)] : [])
        var request = URLRequest(url: try self.url("/background.json", query: query))
        request.setValue((["application/json"] + self.formats.map(\.mediaType)).joined(separator: ", "), forHTTPHeaderField: "Accept")
        let (body, _) = try await self.send(request)
        do {
            return try Background.decode(body, baseURL: self.baseURL)
        } catch {
            throw .invalidResponse("/background.json: \(error)")
        }
    }

    /// The image at `url` (one of ``Background/Images``' URLs), with the format the service says it is.
    public func image(at url: URL) async throws(BackdropError) -> BackdropImage {
        var request = URLRequest(url: url)
        request.setValue(self.formats.map(\.mediaType).joined(separator: ", "), forHTTPHeaderField: "Accept")
        let (body, response) = try await self.send(request)
        guard let format = ImageFormat(contentType: response.value(forHTTPHeaderField: "Content-Type")) else {
            throw .invalidResponse("\(url.path): not an image but \(response.value(forHTTPHeaderField: "Content-Type") ?? "no Content-Type")")
        }
        return BackdropImage(data: body, format: format, credit: response.value(forHTTPHeaderField: "X-Backdrop-Credit").map(PlainLine.of))
    }

    /// `path` (absolute, as the API gives its URLs) under ``baseURL``, with `query`.
    func url(_ path: String, query: [URLQueryItem] = []) throws(BackdropError) -> URL {
        var base = self.baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        guard var components = URLComponents(string: base + path) else { throw .invalidResponse("not a URL: \(base + path)") }
        if !query.isEmpty { components.queryItems = (components.queryItems ?? []) + query }
        guard let url = components.url else { throw .invalidResponse("not a URL: \(base + path)") }
        return url
    }

    /// One exchange, bounded by ``timeout``; any status but 200 becomes the API's error.
    func send(_ request: URLRequest) async throws(BackdropError) -> (Data, HTTPURLResponse) {
        var bounded = request
        bounded.timeoutInterval = self.timeout
        let (body, response) = try await Deadline(seconds: self.timeout).exchange(bounded, session: self.session)
        guard let response = response as? HTTPURLResponse else { throw .invalidResponse("not an HTTP answer") }
        guard response.statusCode == 200 else {
            throw .answer(status: response.statusCode, body: body, retryAfter: response.value(forHTTPHeaderField: "Retry-After"))
        }
        return (body, response)
    }
}

/// An image as the service sent it, for apps that decode it themselves.
public struct BackdropImage: Sendable, Hashable {
    public let data: Data
    public let format: ImageFormat
    /// The photo's one-line credit (`X-Backdrop-Credit`, percent-encoded where not ASCII).
    public let credit: String?
}
