import Foundation
import Testing

@testable import BackdropKit

/// The client's models against Public/openapi.yaml (as JSON): every example decodes, and every schema's fields are
/// exactly the fields the models know, so a field the service gains or renames fails here first.
@Suite(.enabled(if: Environment.openAPI != nil, "needs BACKDROPKIT_OPENAPI_JSON (make test-backdropkit)"))
struct OpenAPITests {
    typealias Object = [String: Any]

    func document() throws -> Object {
        let path = try #require(Environment.openAPI)
        return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? Object)
    }

    /// The object at `path` (keys through the document).
    func object(_ path: [String]) throws -> Object {
        try path.reduce(try self.document()) { object, key in try #require(object[key] as? Object, "\(path)") }
    }

    func json(_ value: Any) throws -> Data {
        try JSONSerialization.data(withJSONObject: value)
    }

    @Test func everyExampleOfBackgroundJSONDecodes() throws {
        let content = try self.object(["paths", "/background.json", "get", "responses", "200", "content", "application/json"])
        let examples = try #require(content["examples"] as? [String: Object])
        #expect(examples.count >= 2)
        for (name, example) in examples {
            let value = try #require(example["value"] as? Object)
            let background = try Background.decode(try self.json(value), baseURL: URL(string: "https://backdrop.example"))
            #expect(background.photoId == value["photoId"] as? String, "\(name)")
            #expect(background.images.blurredPreview.data.count > 20, "\(name): the preview's WebP")
            let size = try #require(ImageHeader.size(background.images.blurredPreview.data), "\(name)")
            #expect(size.width == background.images.blurredPreview.width && size.height == background.images.blurredPreview.height)
            for format in ImageFormat.allCases {
                let url = background.images.url(.blurred, format: format).absoluteString
                #expect(url.hasPrefix("https://backdrop.example/background?cell=") && url.hasSuffix("format=\(format.rawValue)"))
            }
        }
    }

    @Test func everyErrorExampleBecomesItsTypedError() throws {
        let cases: [(String, Int, (BackdropError) -> Bool)] = [
            ("BadRequest", 400, { if case .badRequest(let parameter?, _) = $0 { !parameter.isEmpty } else { false } }),
            ("NotAcceptable", 406, { if case .notAcceptable = $0 { true } else { false } }),
            ("Busy", 503, { if case .busy(let after, _) = $0 { after == 3 } else { false } }),
        ]
        for (name, status, matches) in cases {
            let content = try self.object(["components", "responses", name, "content", "application/json"])
            let examples = try #require(content["examples"] as? [String: Object], "\(name)")
            #expect(!examples.isEmpty)
            for example in examples.values {
                let error = BackdropError.answer(status: status, body: try self.json(try #require(example["value"])), retryAfter: "3")
                #expect(matches(error), "\(name): \(error)")
            }
        }
    }

    /// Each schema object beside the model that decodes it: the same field names, and the same optional ones.
    @Test func everySchemaFieldIsOneTheModelsKnow() throws {
        let info = ["components", "schemas", "BackgroundInfo"]
        let images = info + ["properties", "images"]
        let models: [([String], [String], Set<String>)] = [
            (info, Background.CodingKeys.allCases.map(\.rawValue), ["photoNote", "phase", "notice", "assessment"]),
            (info + ["properties", "license"], Background.License.CodingKeys.allCases.map(\.rawValue), []),
            (info + ["properties", "window"], Background.Window.CodingKeys.allCases.map(\.rawValue), []),
            (images, Background.Images.CodingKeys.allCases.map(\.rawValue), []),
            (images + ["properties", "blurredPreview"], Background.Images.Preview.CodingKeys.allCases.map(\.rawValue), []),
            (["components", "schemas", "ImagePair"], Background.Images.Pair.CodingKeys.allCases.map(\.rawValue), []),
            (info + ["properties", "focus"], Background.Focus.CodingKeys.allCases.map(\.rawValue), []),
            (info + ["properties", "legibility"], Legibility.CodingKeys.allCases.map(\.rawValue), []),
            (["components", "schemas", "LegibilityLayer"], Legibility.Layer.CodingKeys.allCases.map(\.rawValue), []),
            (["components", "schemas", "LegibilityBand"], Legibility.Band.CodingKeys.allCases.map(\.rawValue), []),
            (["components", "schemas", "LegibilityInk"], Legibility.Reading.CodingKeys.allCases.map(\.rawValue), []),
            (["components", "schemas", "Error"], BackdropError.Body.CodingKeys.allCases.map(\.rawValue), ["parameter"]),
        ]
        for (path, fields, optional) in models {
            let schema = try self.object(path)
            let properties = Set(try #require(schema["properties"] as? Object, "\(path)").keys)
            let required = Set(schema["required"] as? [String] ?? [])
            #expect(properties == Set(fields), "\(path.last ?? ""): the schema's fields against the model's")
            #expect(properties.subtracting(required) == optional, "\(path.last ?? ""): the optional fields")
        }
    }

    @Test func theEnumerationsAreTheOnesTheClientNames() throws {
        let images = try self.object(["components", "schemas", "BackgroundInfo", "properties", "images"])
        let format = try #require((images["properties"] as? Object)?["format"] as? Object)
        #expect(Set(format["enum"] as? [String] ?? []) == Set(ImageFormat.allCases.map(\.rawValue)))
        let formats = try #require((images["properties"] as? Object)?["formats"] as? Object)
        #expect(Set(formats["required"] as? [String] ?? []) == Set(ImageFormat.allCases.map(\.rawValue)))
        let style = try self.object(["components", "parameters", "style", "schema"])
        #expect(Set(style["enum"] as? [String] ?? []) == Set(BackgroundStyle.allCases.map(\.rawValue)))
        let source = try self.object(["components", "schemas", "BackgroundInfo", "properties", "source"])
        #expect(
            Set(source["enum"] as? [String] ?? []) == Set([Background.Source.flickr, .commons, .stock, .staleFlickr, .staleCommons].map(\.rawValue))
        )
        let phase = try self.object(["components", "schemas", "BackgroundInfo", "properties", "phase"])
        #expect(Set(phase["enum"] as? [String] ?? []) == Set(Background.Phase.allCases.map(\.rawValue)))
        let photoPhase = try self.object(["components", "schemas", "BackgroundInfo", "properties", "photoPhase"])
        #expect(Set(photoPhase["enum"] as? [String] ?? []) == Set(Background.Phase.allCases.map(\.rawValue) + ["unknown"]))
        let info = try self.object(["paths", "/background.json", "get"])
        let parameters = try #require(info["parameters"] as? [Object]).compactMap { ($0["$ref"] as? String)?.split(separator: "/").last }
        #expect(
            Set(parameters.map(String.init)) == ["lat", "lon", "cell", "variant", "width", "height", "dpr", "style", "crop", "accept"],
            "what the client sends"
        )
        let crop = try self.object(["components", "parameters", "crop", "schema"])
        #expect(Set(BackgroundCrop.allCases.map(\.rawValue)).isSubset(of: Set(crop["enum"] as? [String] ?? [])))
        let said = try self.object(["components", "schemas", "BackgroundInfo", "properties", "crop"])
        #expect(Set(said["enum"] as? [String] ?? []) == Set(BackgroundCrop.allCases.map(\.rawValue)))
    }
}
