import SystemSupport

/// A command's arguments and options, worked out from its declarations the first time they are
/// asked for.
///
/// A run builds the whole command tree to find the command it names, but needs the arguments and
/// options of that command alone; working them out reads every declaration's key path (runtime
/// metadata the first time each is touched), which for all the commands cost more start-up time
/// than the rest of the tree. Help, usage and the parser see the same values either way.
final class CommandDeclarations: Sendable {
    typealias Specs = (arguments: [ArgumentSpec], options: [OptionSpec])

    private let make: @Sendable () -> Specs
    private let made = Locked<Specs?>(nil)

    /// Declarations worked out by `make`, once, when first asked for.
    init(_ make: @escaping @Sendable () -> Specs) { self.make = make }

    /// Declarations given as they are.
    convenience init(arguments: [ArgumentSpec], options: [OptionSpec]) {
        self.init { (arguments, options) }
    }

    var specs: Specs {
        made.withLock { made in
            if let made { return made }
            let specs = make()
            made = specs
            return specs
        }
    }
}
