import Foundation
import Testing

@testable import BackdropKit

/// Credits as one plain line: a name's bidirectional controls cannot reorder the app's text around it.
@Suite("Credits")
struct CreditTests {
    @Test func bidiControlsAreRemovedFromWhatACreditShows() throws {
        // An owner whose right-to-left override would turn the rest of the line around, and an isolate left open.
        let background = try Fixture.background(secondsLeft: 600, receivedAt: Date(), owner: "Peter\\u202E Nerlich\\u2067")
        #expect(background.owner == "Peter Nerlich")
        #expect(PlainLine.of("a\u{200F}b\u{061C}c\u{2066}d\u{202A}e") == "abcde")
        #expect(PlainLine.of("ציור של תל אביב") == "ציור של תל אביב", "right-to-left text itself is kept")
    }
}
