import Foundation
import FuzzDriver
import PlistKit

runFuzzer { data in
    _ = try? OpenStepPlistReader().readDocument(data)
}
