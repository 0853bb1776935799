/// A value kept on the heap and copied only when a shared copy is changed: whatever holds one holds a pointer.
///
/// Why: an async function keeps its locals and temporaries in a heap frame for as long as it waits, and a batch
/// keeps hundreds of pushes waiting on the network. A `ProcessResult` of hundreds of bytes can take several slots
/// of one frame, in every push in flight; boxed, each slot is 8 bytes.
package struct CopyOnWrite<Value: Sendable>: Sendable {
    /// Changed only through `value`, which first copies a box another copy also holds: a box two copies share is never
    /// written, so handing copies to other threads is as safe as handing them the value itself.
    private final class Box: @unchecked Sendable {
        var value: Value
        init(_ value: Value) { self.value = value }
    }

    private var box: Box

    package init(_ value: Value) {
        box = Box(value)
    }

    package var value: Value {
        get { box.value }
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.value) }
            yield &box.value
        }
    }
}
