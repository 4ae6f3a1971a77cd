/// The API's fixed bounds on output size.
package enum BackgroundLimits {
    package static let sideRange = 1...2048
    package static let maxPixels = 4_000_000
}
