/// `variant=N`: the N-th photo of a place's order for the window (0, the default, is the chosen one), the same in
/// every replica because the order is.
enum PhotoVariants {
    /// Variants a request may name: 0 up to this, less one.
    package static let limit = 10

    /// The `variant`-th of `photos` (counting round again when the place has fewer), said to be one of the place's
    /// variants; nil when there are none.
    static func pick(_ variant: Int, from photos: [SourcePhoto]) -> SourcePhoto? {
        guard !photos.isEmpty else { return nil }
        let count = min(Self.limit, photos.count)
        return photos[variant % count].among(count)
    }
}
