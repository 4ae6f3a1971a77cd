import Foundation

public struct StoredPhoto: Sendable {
    public let photo: SourcePhoto
    public let window: Int64
    public let created: Date
}
