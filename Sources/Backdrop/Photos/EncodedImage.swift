/// Encoded photo bytes (JPEG or PNG); `variant` names which size of the photo they are.
public struct EncodedImage: Sendable {
    public let bytes: [UInt8]
    public let variant: String

    public init(bytes: [UInt8], variant: String) {
        self.bytes = bytes
        self.variant = variant
    }
}
