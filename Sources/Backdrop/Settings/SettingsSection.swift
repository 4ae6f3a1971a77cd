/// One section of the settings (`server`, `photos` …): it reads itself, from the file, the environment and the flags,
/// beside its definition.
protocol SettingsSection {
    /// Its key in the file.
    static var name: String { get }
    /// Reads every key of the section over the defaults already in `self`.
    mutating func read(_ section: inout SectionReader) throws
}
