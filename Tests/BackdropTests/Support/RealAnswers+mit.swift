
@testable import Backdrop

/// The recorded Commons answer around MIT, Cambridge (Massachusetts), and the query that asks for its place.
extension RealAnswers {
    static let mit = "commons-scumabuse-geosearch-mit-cambridge.json"

    static let mitQuery = "lat=42.359722&lon=-71.091944"
}
