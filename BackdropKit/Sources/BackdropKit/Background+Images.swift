import Foundation

extension Background {
    /// The sharp (blur 0) or the fully blurred (blur 1) image: show the blurred one over the sharp one, its opacity
    /// following the scroll (``BackdropScene/blurredOpacity(scrollOffset:)``).
    public enum Layer: Sendable, Hashable, CaseIterable {
        case sharp
        case blurred
    }

    /// The images of a background: cell URLs of both layers in every format (the same URLs for every client in the
    /// cell, so a CDN or URLCache serves them), the blurred layer inline, and placeholders.
    public struct Images: Sendable, Hashable, Decodable {
        /// The blurred layer itself, a lossless WebP of a few dozen pixels: stretched to the view's size with smooth
        /// interpolation it is the fully blurred image (50 dB or better), so it can stand in for the blurred layer.
        public struct Preview: Sendable, Hashable, Decodable {
            /// The `data:image/webp;base64,…` URI, for a web view.
            public let uri: String
            public let width: Int
            public let height: Int
            /// The WebP file the URI holds.
            public let data: Data

            enum CodingKeys: String, CodingKey, CaseIterable {
                case uri, width, height
            }

            public init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                self.uri = try container.decode(String.self, forKey: .uri)
                self.width = try container.decode(Int.self, forKey: .width)
                self.height = try container.decode(Int.self, forKey: .height)
                let prefix = "data:image/webp;base64,"
                guard self.uri.hasPrefix(prefix), let data = Data(base64Encoded: String(self.uri.dropFirst(prefix.count))) else {
                    throw DecodingError.dataCorruptedError(forKey: .uri, in: container, debugDescription: "not a base64 WebP data URI")
                }
                self.data = data
            }
        }

        /// Both layers' URLs in one format, relative to the service as the JSON gives them.
        struct Pair: Sendable, Hashable, Decodable {
            let sharp: String
            let blurred: String

            enum CodingKeys: String, CodingKey, CaseIterable {
                case sharp, blurred
            }
        }

        /// The format the request's `Accept` preferred among the client's ``BackdropClient/formats``.
        public let format: ImageFormat
        public let blurredPreview: Preview
        /// ThumbHash (base64) and BlurHash of the blurred layer, for image components that take those.
        public let thumbHash: String
        public let blurHash: String
        /// The blurred layer's mean colour: fill the view with it before any image is there.
        public let color: BackdropColor
        let sharp: String
        let blurred: String
        let formats: [String: Pair]
        /// Each layer as a CSS `image-set()` of AVIF, WebP and JPEG at 1x to 3x, with paths relative to the service:
        /// for a web view's CSS (``imageSet(_:)`` makes them absolute).
        let imageSet: Pair
        /// The service's URL, which the JSON's URLs are relative to (set by ``Background/decode(_:baseURL:receivedAt:)``).
        var baseURL: URL?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case format, sharp, blurred, blurredPreview, thumbHash, blurHash, color, formats, imageSet
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.format = try container.decode(ImageFormat.self, forKey: .format)
            self.sharp = try container.decode(String.self, forKey: .sharp)
            self.blurred = try container.decode(String.self, forKey: .blurred)
            self.blurredPreview = try container.decode(Preview.self, forKey: .blurredPreview)
            self.thumbHash = try container.decode(String.self, forKey: .thumbHash)
            self.blurHash = try container.decode(String.self, forKey: .blurHash)
            self.color = try container.decode(BackdropColor.self, forKey: .color)
            self.formats = try container.decode([String: Pair].self, forKey: .formats)
            // A service from before `dpr` sends none: the sets are then empty.
            self.imageSet = try container.decodeIfPresent(Pair.self, forKey: .imageSet) ?? Pair(sharp: "", blurred: "")
            guard let missing = ImageFormat.allCases.first(where: { self.formats[$0.rawValue] == nil }) else { return }
            throw DecodingError.dataCorruptedError(forKey: .formats, in: container, debugDescription: "no \(missing.rawValue) URLs")
        }

        /// The cell URL of `layer` in `format`.
        public func url(_ layer: Layer, format: ImageFormat) -> URL {
            let pair = self.formats[format.rawValue] ?? Pair(sharp: self.sharp, blurred: self.blurred)
            return self.resolve(layer == .sharp ? pair.sharp : pair.blurred)
        }

        /// The cell URL of `layer` in the first format of Backdrop's order (AVIF, WebP, JPEG, PNG) that the caller
        /// decodes.
        public func url(_ layer: Layer, decoding formats: some Sequence<ImageFormat>) -> URL {
            self.url(layer, format: ImageFormat.preferred(among: formats))
        }

        /// The cell URL of `layer` in ``format``.
        public func url(_ layer: Layer) -> URL {
            self.url(layer, format: self.format)
        }

        /// `layer` as a CSS `image-set()` value whose URLs are absolute (on the service), for a web view's page; empty
        /// from a service older than `dpr`.
        public func imageSet(_ layer: Layer) -> String {
            let set = layer == .sharp ? self.imageSet.sharp : self.imageSet.blurred
            guard let root = URL(string: "/", relativeTo: self.baseURL)?.absoluteString, root.hasPrefix("http") else { return set }
            let origin = String(root.dropLast())
            return set.replacingOccurrences(of: "url(\"/background?", with: "url(\"\(origin)/background?")
        }

        private func resolve(_ path: String) -> URL {
            let relative = URL(string: path, relativeTo: self.baseURL)
            return relative?.absoluteURL ?? self.baseURL ?? URL(fileURLWithPath: path)
        }
    }
}
