/// CodeSign's API speaks in `HashType`s and digests, so a module that imports CodeSign gets the
/// `Crypto` module's types with it.
@_exported import Crypto
