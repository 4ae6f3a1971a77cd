import Foundation

/// Why the stock photo folder cannot be used.
package struct StockPhotoError: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
