import Foundation

/// Why the stock photo folder cannot be used.
public struct StockPhotoError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
