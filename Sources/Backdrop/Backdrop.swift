/// Facts about this build of the service.
package enum Backdrop {
    package static let version = "0.1.0"
}
