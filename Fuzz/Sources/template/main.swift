import Foundation
import FuzzDriver
import Manifest

runFuzzer { data in
    let text = String(decoding: data, as: UTF8.self)
    if let template = try? Template(name: "fuzz", source: text) {
        let context: TemplateValue = ["a": "x<y", "list": [["b": true], ["b": "z"]], "flag": false]
        _ = try? template.render(context, partials: ["self": template])
    }
}
