/// How a photo is cover-cropped to the output's shape (`crop`): around where its interest lies (``Attention``), or
/// at its centre.
package enum CropMode: String, Sendable, Hashable, CaseIterable {
    case attention
    case centre

    /// `crop`'s values: the modes, and `center` for `centre`.
    package init?(parameter: String) {
        if parameter == "center" {
            self = .centre
        } else {
            self.init(rawValue: parameter)
        }
    }
}
