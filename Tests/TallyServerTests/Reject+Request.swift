import TallyPipeline

extension Reject {
    /// The request a collector's reject came from, for assertions.
    var requestID: String? {
        if case .request(let id, _, _) = origin { id } else { nil }
    }

    /// The reject's position in its request.
    var index: Int? {
        if case .request(_, let index, _) = origin { index } else { nil }
    }
}
