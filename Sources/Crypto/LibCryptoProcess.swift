import CLibCrypto

/// What libcrypto does for the whole process.
public enum LibCryptoProcess {
    /// Initialises libcrypto without the cleanup it otherwise registers to run at exit, where it
    /// frees every table it built (about 0.3 ms at the end of each command, on one core, after the
    /// output is written). For an executable's `main`, before anything uses libcrypto; a library
    /// embedded in a longer-lived process should leave the cleanup in place.
    public static func initializeWithoutCleanupAtExit() {
        _ = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil)
    }
}
