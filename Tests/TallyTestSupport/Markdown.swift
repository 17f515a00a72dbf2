import Foundation

/// Reading the fenced code blocks of the documentation, for the tests that compile or run them.
public enum Markdown {
    /// The ```` ```language ```` blocks of `text`, with the line number of each block's first line.
    public static func codeBlocks(_ language: String, in text: String) -> [(line: Int, code: String)] {
        var blocks: [(Int, String)] = []
        var current: [Substring]?
        var start = 0
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```" + language {
                current = []
                start = number + 2
            } else if current != nil, trimmed == "```" {
                blocks.append((start, current!.joined(separator: "\n")))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }
}
