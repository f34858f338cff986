import Foundation

extension ProvisioningProfile {
    /// Whole days from `now` until the profile expires, rounded down (negative once it has expired);
    /// nil when the profile has no expiry date. The one place days-to-expiry is worked out.
    public func daysUntilExpiry(from now: Date) -> Int? {
        expirationDate.map { Int(($0.timeIntervalSince(now) / 86_400).rounded(.down)) }
    }
}
