// The fitted tables of ``QualityModel``, as `Benchmarks/fidelity.py --fit` prints them from `backdrop-bench --fidelity`
// on the 8 bench photos and the 18 stock photos: 640x1136 renders at blur 0, 0.25, 0.5, 0.75 and 1, qualities 20 to 96.
extension QualityModel {
    // jpeg: 2588 encodes; residual sd 0.83 dB, 10th percentile -1.00, worst -2.40
    static let jpeg = QualityModel(
        lines: [
            Line(20, 38.19, -3.77), Line(24, 39.41, -4.09), Line(28, 40.13, -4.17), Line(32, 40.93, -4.42),
            Line(36, 41.85, -4.74), Line(40, 42.23, -4.76), Line(44, 42.74, -4.84), Line(48, 42.92, -4.77),
            Line(52, 43.65, -5.05), Line(56, 43.72, -4.92), Line(60, 43.99, -4.87), Line(64, 44.23, -4.77),
            Line(68, 45.02, -5.04), Line(72, 45.55, -5.11), Line(76, 46.67, -5.59), Line(80, 46.86, -5.25),
            Line(84, 47.50, -5.13), Line(88, 48.17, -4.86), Line(92, 48.88, -4.36), Line(96, 49.89, -3.26),
        ],
        margin: 1.00,
        retryMargin: 0.5,
        worst: 2.40
    )
    // webp: 2600 encodes; residual sd 0.81 dB, 10th percentile -1.04, worst -1.95
    static let webp = QualityModel(
        lines: [
            Line(20, 40.50, -5.14), Line(24, 40.75, -5.01), Line(28, 41.20, -5.05), Line(32, 41.46, -5.04),
            Line(36, 41.91, -5.12), Line(40, 42.19, -5.13), Line(44, 42.37, -5.08), Line(48, 42.89, -5.32),
            Line(52, 43.09, -5.27), Line(56, 43.21, -5.14), Line(60, 43.77, -5.36), Line(64, 44.06, -5.40),
            Line(68, 44.19, -5.28), Line(72, 44.38, -5.20), Line(76, 44.60, -5.03), Line(80, 45.29, -4.96),
            Line(84, 45.74, -4.42), Line(88, 46.03, -3.71), Line(92, 47.14, -3.32), Line(96, 48.03, -2.54),
        ],
        margin: 1.04,
        retryMargin: 0.5,
        worst: 1.95
    )
    // avif: 2587 encodes; residual sd 0.96 dB, 10th percentile -1.31, worst -2.15
    static let avif = QualityModel(
        lines: [
            Line(20, 39.13, -6.29), Line(24, 39.82, -6.47), Line(28, 40.69, -6.41), Line(32, 41.24, -6.44),
            Line(36, 41.93, -6.33), Line(40, 42.29, -6.17), Line(44, 43.23, -6.22), Line(48, 43.72, -6.14),
            Line(52, 44.44, -5.89), Line(56, 44.73, -5.72), Line(60, 45.18, -5.34), Line(64, 45.49, -5.08),
            Line(68, 45.77, -4.83), Line(72, 45.97, -4.58), Line(76, 46.49, -4.27), Line(80, 46.78, -4.03),
            Line(84, 47.21, -3.56), Line(88, 47.53, -3.15), Line(92, 48.22, -2.43), Line(96, 48.81, -1.98),
        ],
        margin: 1.31,
        retryMargin: 0.5,
        worst: 2.15
    )
}
