import Foundation

@testable import Backdrop

/// Photos the tests make.
extension Fixtures {
    static let photo = SourcePhoto(
        id: "stock-001",
        origin: .stock,
        attribution: Attribution(title: "t", author: "a", license: "l", licenseURL: "u", sourceURL: "s")
    )

    static func jpeg(_ width: Int, _ height: Int, _ rgb: (UInt8, UInt8, UInt8)) throws -> Data {
        Data(buffer: try JPEGEncoder.encode(solid(width, height, rgb), quality: 90))
    }
}
