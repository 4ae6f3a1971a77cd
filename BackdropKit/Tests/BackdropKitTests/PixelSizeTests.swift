import Foundation
import Testing

@testable import BackdropKit

/// A view's points and the screen's scale as the request says them: points and `dpr` where Backdrop takes the scale
/// and the pixels fit as they are, else the pixels brought within the limits.
@Suite struct PixelSizeTests {
    @Test(
        arguments: [
            (390.0, 844.0, 2.0, 390, 844, String?.some("2")), (360, 640, 1.5, 360, 640, "1.5"), (300, 600, 3, 300, 600, "3"),
            (320, 568, 1, 320, 568, nil),
            (390, 844, 3, 946, 2048, nil),  // 1170x2532 is past 2048: shrunk, so asked as pixels
            (412, 915, 2.625, 0, 0, nil),  // not a density Backdrop takes: pixels (shrunk to 2048 high)
            (390.5, 844, 2, 781, 1688, nil),  // not whole points: pixels
        ]
    )
    func theQuery(width: Double, height: Double, scale: Double, queryWidth: Int, queryHeight: Int, dpr: String?) {
        let size = PixelSize(width: width, height: height, scale: scale)
        if dpr != nil {
            #expect(size.query.width == queryWidth && size.query.height == queryHeight && size.query.dpr == dpr, "\(size.query)")
            #expect(Double(size.width) == width * scale && Double(size.height) == height * scale, "the pixels are the points times the scale")
        } else {
            #expect(size.query.dpr == nil && size.query.width == size.width && size.query.height == size.height, "\(size.query)")
            #expect(size.width <= 2048 && size.height <= 2048)
        }
    }
}
