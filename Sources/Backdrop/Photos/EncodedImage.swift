/// Encoded photo bytes (JPEG or PNG); `variant` names which size of the photo they are.
package struct EncodedImage: Sendable {
    package let bytes: [UInt8]
    package let variant: String

    package init(bytes: [UInt8], variant: String) {
        self.bytes = bytes
        self.variant = variant
    }
}
