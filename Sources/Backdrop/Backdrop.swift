/// Facts about this build of the service.
public enum Backdrop {
    public static let version = "0.1.0"
}
