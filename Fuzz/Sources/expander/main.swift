import Foundation
import FuzzDriver
import XcodeProjectEditing

runFuzzer { data in
    let text = String(decoding: data, as: UTF8.self)
    let expander = BuildSettingExpander(variables: ["A": "$(B)", "B": "value", "LOOP": "$(LOOP)", "EMPTY": "", "NAME": "Shout Out"])
    _ = try? expander.expand(text)
}
