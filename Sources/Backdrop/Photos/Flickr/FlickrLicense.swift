/// Flickr's licence ids (`flickr.photos.licenses.getInfo`) with the name and URL an attribution must give.
package struct FlickrLicense: Sendable, Hashable {
    package let id: Int
    package let name: String
    package let url: String

    /// NoDerivs licences forbid the modified (blurred) copies Backdrop serves.
    package static let noDerivatives: Set<Int> = [3, 6, 13, 16]

    package static func named(_ id: Int) -> FlickrLicense? {
        self.all[id]
    }

    private static let all: [Int: FlickrLicense] = [
        0: .init(id: 0, name: "All Rights Reserved", url: ""),
        1: .init(id: 1, name: "CC BY-NC-SA 2.0", url: "https://creativecommons.org/licenses/by-nc-sa/2.0/"),
        2: .init(id: 2, name: "CC BY-NC 2.0", url: "https://creativecommons.org/licenses/by-nc/2.0/"),
        3: .init(id: 3, name: "CC BY-NC-ND 2.0", url: "https://creativecommons.org/licenses/by-nc-nd/2.0/"),
        4: .init(id: 4, name: "CC BY 2.0", url: "https://creativecommons.org/licenses/by/2.0/"),
        5: .init(id: 5, name: "CC BY-SA 2.0", url: "https://creativecommons.org/licenses/by-sa/2.0/"),
        6: .init(id: 6, name: "CC BY-ND 2.0", url: "https://creativecommons.org/licenses/by-nd/2.0/"),
        7: .init(id: 7, name: "No known copyright restrictions", url: "https://www.flickr.com/commons/usage/"),
        8: .init(id: 8, name: "United States Government Work", url: "https://www.usa.gov/government-works"),
        9: .init(id: 9, name: "CC0 1.0", url: "https://creativecommons.org/publicdomain/zero/1.0/"),
        10: .init(id: 10, name: "Public Domain Mark 1.0", url: "https://creativecommons.org/publicdomain/mark/1.0/"),
        11: .init(id: 11, name: "CC BY 4.0", url: "https://creativecommons.org/licenses/by/4.0/"),
        12: .init(id: 12, name: "CC BY-SA 4.0", url: "https://creativecommons.org/licenses/by-sa/4.0/"),
        13: .init(id: 13, name: "CC BY-ND 4.0", url: "https://creativecommons.org/licenses/by-nd/4.0/"),
        14: .init(id: 14, name: "CC BY-NC 4.0", url: "https://creativecommons.org/licenses/by-nc/4.0/"),
        15: .init(id: 15, name: "CC BY-NC-SA 4.0", url: "https://creativecommons.org/licenses/by-nc-sa/4.0/"),
        16: .init(id: 16, name: "CC BY-NC-ND 4.0", url: "https://creativecommons.org/licenses/by-nc-nd/4.0/"),
    ]
}
