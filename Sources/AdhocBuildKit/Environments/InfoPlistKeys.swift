import SystemSupport

/// The top-level Info.plist keys Apple documents for apps and their extensions, so that a misspelt one in an
/// environment's `Info` (`CFBundleDisplayNam`) is caught instead of being written into the app, where iOS
/// silently ignores it.
///
/// Written from Apple's "Information Property List" reference (developer.apple.com/documentation/bundleresources/
/// information-property-list) and its predecessor, the "Information Property List Key Reference": the Core
/// Foundation (`CF…`), Launch Services (`LS…`), Cocoa (`NS…`, the privacy `…UsageDescription` strings among
/// them), UIKit (`UI…`), App Store (`ITS…`) and framework keys (`BG…`, `GK…`, `WK…`, …), plus the `DT…` and
/// `BuildMachineOSBuild` keys Xcode writes into every built Info.plist. A key that is not here and not close
/// to one that is, is the app's own and passes.
public enum InfoPlistKeys {
    /// Apple's documented top-level Info.plist keys.
    public static let documented: Set<String> = [
        // Core Foundation
        "CFAppleHelpAnchor", "CFBundleAllowMixedLocalizations", "CFBundleDevelopmentRegion",
        "CFBundleDisplayName", "CFBundleDocumentTypes", "CFBundleExecutable", "CFBundleGetInfoString", "CFBundleHelpBookFolder",
        "CFBundleHelpBookName", "CFBundleIconFile", "CFBundleIconFiles", "CFBundleIconName", "CFBundleIcons", "CFBundleIdentifier",
        "CFBundleInfoDictionaryVersion", "CFBundleLocalizations", "CFBundleName", "CFBundlePackageType",
        "CFBundleShortVersionString", "CFBundleSignature", "CFBundleSpokenName", "CFBundleSupportedPlatforms",
        "CFBundleURLTypes", "CFBundleVersion",
        // Launch Services
        "LSApplicationCategoryType", "LSApplicationQueriesSchemes", "LSApplicationSecondaryCategoryType",
        "LSArchitecturePriority", "LSBackgroundOnly", "LSEnvironment", "LSFileQuarantineEnabled", "LSMinimumSystemVersion",
        "LSMinimumSystemVersionByArchitecture", "LSMultipleInstancesProhibited", "LSRequiresIPhoneOS",
        "LSRequiresNativeExecution", "LSSupportsGameMode", "LSSupportsOpeningDocumentsInPlace", "LSUIElement",
        "LSUIPresentationMode",
        // Cocoa and Foundation
        "NSAccentColorName", "NSAdvertisingAttributionReportEndpoint", "NSAppClip", "NSAppTransportSecurity",
        "NSAppleScriptEnabled", "NSBonjourServices", "NSDockTilePlugIn", "NSExtension", "NSHighResolutionCapable",
        "NSHumanReadableCopyright", "NSLocationDefaultAccuracyReduced", "NSLocationTemporaryUsageDescriptionDictionary",
        "NSMainNibFile", "NSMainStoryboardFile", "NSPrefersDisplaySafeAreaCompatibilityMode", "NSPrincipalClass",
        "NSRequiresAquaSystemAppearance", "NSServices", "NSSupportsAutomaticGraphicsSwitching",
        "NSSupportsAutomaticTermination", "NSSupportsLiveActivities", "NSSupportsLiveActivitiesFrequentUpdates",
        "NSSupportsSuddenTermination", "NSUbiquitousContainers", "NSUserActivityTypes",
        // Privacy: the purpose strings iOS shows when it asks for access
        "NSAlarmKitUsageDescription", "NSAppleEventsUsageDescription", "NSAppleMusicUsageDescription",
        "NSBluetoothAlwaysUsageDescription", "NSBluetoothPeripheralUsageDescription", "NSCalendarsFullAccessUsageDescription",
        "NSCalendarsUsageDescription", "NSCalendarsWriteOnlyAccessUsageDescription", "NSCameraUsageDescription",
        "NSContactsUsageDescription", "NSCriticalMessagingUsageDescription", "NSDesktopFolderUsageDescription",
        "NSDocumentsFolderUsageDescription", "NSDownloadsFolderUsageDescription", "NSFaceIDUsageDescription",
        "NSFallDetectionUsageDescription", "NSFileProviderDomainUsageDescription", "NSFinancialDataUsageDescription",
        "NSFocusStatusUsageDescription", "NSGKFriendListUsageDescription", "NSHandsTrackingUsageDescription",
        "NSHealthClinicalHealthRecordsShareUsageDescription", "NSHealthRequiredReadAuthorizationTypeIdentifiers",
        "NSHealthShareUsageDescription", "NSHealthUpdateUsageDescription", "NSHomeKitUsageDescription",
        "NSIdentityUsageDescription", "NSLocalNetworkUsageDescription", "NSLocationAlwaysAndWhenInUseUsageDescription",
        "NSLocationAlwaysUsageDescription", "NSLocationUsageDescription", "NSLocationWhenInUseUsageDescription",
        "NSMainCameraUsageDescription", "NSMicrophoneUsageDescription", "NSMotionUsageDescription",
        "NSNearbyInteractionAllowOnceUsageDescription", "NSNearbyInteractionUsageDescription", "NSNetworkVolumesUsageDescription",
        "NSPhotoLibraryAddUsageDescription", "NSPhotoLibraryUsageDescription", "NSRemindersFullAccessUsageDescription",
        "NSRemindersUsageDescription", "NSRemovableVolumesUsageDescription", "NSSensorKitPrivacyPolicyURL",
        "NSSensorKitUsageDescription", "NSSensorKitUsageDetail", "NSSiriUsageDescription", "NSSpeechRecognitionUsageDescription",
        "NSSystemAdministrationUsageDescription", "NSUserTrackingUsageDescription", "NSVideoSubscriberAccountUsageDescription",
        "NSWorldSensingUsageDescription", "NFCReaderUsageDescription",
        // UIKit
        "UIAppFonts", "UIAppSupportsHDR", "UIApplicationExitsOnSuspend", "UIApplicationSceneManifest",
        "UIApplicationShortcutItems", "UIApplicationSupportsIndirectInputEvents", "UIBackgroundModes", "UIDesignRequiresCompatibility",
        "UIDeviceFamily", "UIFileSharingEnabled", "UIInterfaceOrientation", "UILaunchImageFile", "UILaunchImages", "UILaunchScreen",
        "UILaunchScreens", "UILaunchStoryboardName", "UILaunchStoryboards", "UIMainStoryboardFile", "UINewsstandApp",
        "UIPrefersShowingLanguageSettings", "UIPrerenderedIcon", "UIRequiredDeviceCapabilities", "UIRequiresFullScreen",
        "UIRequiresPersistentWiFi", "UIStatusBarHidden", "UIStatusBarStyle", "UIStatusBarTintParameters",
        "UISupportedExternalAccessoryProtocols", "UISupportedInterfaceOrientations", "UISupportsDocumentBrowser",
        "UISupportsTrueScreenSizeOnMac", "UIUserInterfaceStyle", "UIViewControllerBasedStatusBarAppearance",
        "UIViewEdgeAntialiasing", "UIViewGroupOpacity", "UIWhitePointAdaptivityStyle",
        // App Store, frameworks and other platforms
        "BGTaskSchedulerPermittedIdentifiers", "CADisableMinimumFrameDurationOnPhone", "CoreSpotlightContinuation",
        "EXAppExtensionAttributes", "GCSupportedGameControllers", "GCSupportsControllerUserInteraction", "GCSupportsGameMode",
        "GKGameCenterBadgingDisabled", "GKShowChallengeBanners", "INAlternativeAppNames", "INIntentsSupported",
        "ITSAppUsesNonExemptEncryption", "ITSEncryptionExportComplianceCode", "MKDirectionsApplicationSupportedModes",
        "MinimumOSVersion", "SKAdNetworkItems", "UTExportedTypeDeclarations", "UTImportedTypeDeclarations",
        "WKAppBundleIdentifier", "WKApplication", "WKBackgroundModes", "WKCompanionAppBundleIdentifier",
        "WKExtensionDelegateClassName", "WKRunsIndependentlyOfCompanionApp", "WKWatchKitApp", "WKWatchOnly",
        "com.apple.developer.nfc.readersession.felica.systemcodes",
        "com.apple.developer.nfc.readersession.iso7816.select-identifiers",
        // Written by Xcode into every built app
        "BuildMachineOSBuild", "DTCompiler", "DTPlatformBuild", "DTPlatformName", "DTPlatformVersion", "DTSDKBuild", "DTSDKName",
        "DTXcode", "DTXcodeBuild"
    ]

    /// Why `key` looks like a misspelt documented key (`did you mean …?`), or nil when it is documented or
    /// far enough from every documented key to be the app's own. A device suffix (`~ipad`, `~iphone`) is
    /// ignored; case matters, as it does to iOS.
    public static func problem(_ key: String) -> String? {
        let bare = key.split(separator: "~", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? key
        guard !documented.contains(bare) else { return nil }
        let candidates = Array(documented).sorted()
        guard let guess = Suggestion.closest(to: bare, in: candidates, maximumDistance: max(1, bare.count / 8)) else { return nil }
        return "unknown Info.plist key '\(key)'; did you mean '\(guess)'?"
    }
}
