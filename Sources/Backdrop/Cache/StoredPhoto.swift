import Foundation

package struct StoredPhoto: Sendable {
    package let photo: SourcePhoto
    package let window: Int64
    package let created: Date
}
