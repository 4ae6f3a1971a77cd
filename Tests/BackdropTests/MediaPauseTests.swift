import Foundation
import HummingbirdTesting
import Testing

@testable import Backdrop

/// Issue 58, part 3: a media host that answers `429` or `503` is paused for its `Retry-After`; nothing is asked of it
/// meanwhile, no photo is marked unusable, the request goes on to the next source (here stock), and the photo is tried
/// again once the pause ends.
@Suite("Media hosts that ask to wait", .serialized)
struct MediaPauseTests {
    @Test func aMediaHostsTooManyRequestsPausesItAndMarksNoPhotoUnusable() async throws {
        let clock = MovableClock(HTTPTests.epoch)
        var file = StandInCommons.File(pageid: 7)
        file.image = "throttled.jpg"
        let files = [file]
        try await CommonsTests.withBackdrop({ [.json($0.searchJSON(files))] }, clock: clock) { commons, client, _ in
            func ask(_ width: Int) async throws -> String? {
                let (answer, json) = try await CommonsTests.json(client, "\(CommonsTests.paris)&width=\(width)&height=64")
                #expect(answer.status == .ok)
                return json["source"] as? String
            }
            let first = try await ask(64)
            #expect(first == "stock" && commons.downloads.count == 1, "one call, then the next source")
            clock.advance(60)
            let second = try await ask(80)
            #expect(second == "stock" && commons.downloads.count == 1, "within Retry-After: nothing asked of the host")
            clock.advance(61)
            let third = try await ask(96)
            #expect(third == "stock" && commons.downloads.count == 2, "after it: the same photo tried again, never marked unusable")
            #expect(commons.searches.count == 1)
        }
    }

    @Test func aPauseHonoursRetryAfterWithinItsBounds() async {
        let clock = MovableClock(HTTPTests.epoch)
        let pauses = MediaHostPauses(clock: clock)
        await pauses.pause("thumb.wikimedia.org", seconds: nil)
        await pauses.pause("upload.wikimedia.org", seconds: 1e9)
        #expect(await pauses.remaining("thumb.wikimedia.org") == 60, "a minute when the host does not say")
        #expect(await pauses.remaining("upload.wikimedia.org") == 3600, "an hour at most")
        await pauses.pause("upload.wikimedia.org", seconds: 5)
        #expect(await pauses.remaining("upload.wikimedia.org") == 3600, "a shorter pause never shortens one running")
        clock.advance(60)
        let (thumb, flickr) = (await pauses.remaining("thumb.wikimedia.org"), await pauses.remaining("live.staticflickr.com"))
        #expect(thumb == nil && flickr == nil)
    }
}
