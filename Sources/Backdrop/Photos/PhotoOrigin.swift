package enum PhotoOrigin: String, Sendable, Hashable, Codable {
    case stock
    case flickr
}
