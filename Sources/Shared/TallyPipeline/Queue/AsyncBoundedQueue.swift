import DequeModule
import TallyCore

/// A bounded single-consumer queue: `push` waits while it is full, `next` while it is empty.
///
/// Sits between the batcher and one sink worker, so that a slow sink only holds up the others
/// once its own queue is full (backpressure), never before.
final class AsyncBoundedQueue<Element: Sendable>: Sendable {
    private struct State {
        var elements = Deque<Element>()
        var isFinished = false
        var consumer: CheckedContinuation<Element?, Never>?
        var producers: Deque<CheckedContinuation<Void, Never>> = []
    }

    private let capacity: Int
    private let state = Locked(State())

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Appends `element`, waiting for room. Elements pushed after ``finish()`` are discarded.
    func push(_ element: Element) async {
        while true {
            // nil: full; .some(consumer): hand the element to the waiting consumer; .some(nil): queued,
            // or discarded after finish.
            let outcome = state.withLock { state -> CheckedContinuation<Element?, Never>?? in
                if state.isFinished { return .some(nil) }
                guard state.elements.count < capacity else { return nil }
                if let consumer = state.consumer {
                    state.consumer = nil
                    return .some(consumer)
                }
                state.elements.append(element)
                return .some(nil)
            }
            switch outcome {
            case .some(let consumer):
                consumer?.resume(returning: element)
                return
            case .none:
                await withCheckedContinuation { continuation in
                    let hasRoom = state.withLock { state -> Bool in
                        if state.elements.count < capacity || state.isFinished { return true }
                        state.producers.append(continuation)
                        return false
                    }
                    if hasRoom { continuation.resume() }
                }
            }
        }
    }

    /// The next element; nil once finished and empty.
    func next() async -> Element? {
        await withCheckedContinuation { continuation in
            let (element, producer) = state.withLock { state -> (Element??, CheckedContinuation<Void, Never>?) in
                if let element = state.elements.popFirst() {
                    return (.some(element), state.producers.popFirst())
                }
                if state.isFinished { return (.some(nil), nil) }
                state.consumer = continuation
                return (nil, nil)
            }
            producer?.resume()
            if let element { continuation.resume(returning: element) }
        }
    }

    /// No more elements: the consumer drains what is queued, then gets nil.
    func finish() {
        let (consumer, producers) = state.withLock { state in
            state.isFinished = true
            defer {
                state.consumer = nil
                state.producers = []
            }
            return (state.elements.isEmpty ? state.consumer : nil, state.producers)
        }
        consumer?.resume(returning: nil)
        for producer in producers { producer.resume() }
    }
}
