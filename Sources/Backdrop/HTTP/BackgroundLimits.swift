/// The API's fixed bounds on output size.
public enum BackgroundLimits {
    public static let sideRange = 1...2048
    public static let maxPixels = 4_000_000
}
