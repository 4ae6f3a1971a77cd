import Foundation

package enum LogLevelSetting: String, Sendable, CaseIterable {
    case trace, debug, info, notice, warning, error, critical
}
