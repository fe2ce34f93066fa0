//! The lock-free list the signal handler reads ([`List`]): items are added and taken out by
//! ordinary code and read by the handler without a lock or an allocation. Nodes are never
//! freed (emptied ones are reused); an item taken out is freed only while no handler has
//! started ([`HANDLING`]).

use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

/// Set once the handler started: from then on nothing taken out of a [`List`] is freed (the
/// handler may be reading it on another thread).
pub(super) static HANDLING: AtomicBool = AtomicBool::new(false);
/// A set of items readable from a signal handler: nodes are never freed (they are reused), and
/// an item taken out is freed only while no handler has started.
pub struct List<T: 'static> {
    head: AtomicPtr<Node<T>>,
}

struct Node<T> {
    item: AtomicPtr<T>,
    next: AtomicPtr<Node<T>>,
}

/// An item's place in a [`List`]: dropping it takes the item out.
pub struct Slot<T: 'static> {
    node: &'static Node<T>,
}

impl<T: Send + Sync + 'static> Default for List<T> {
    fn default() -> List<T> {
        List::new()
    }
}

impl<T: Send + Sync + 'static> List<T> {
    pub const fn new() -> List<T> {
        List {
            head: AtomicPtr::new(std::ptr::null_mut()),
        }
    }

    /// Add `item` (to an empty node when there is one).
    pub fn insert(&'static self, item: T) -> Slot<T> {
        let item = Box::into_raw(Box::new(item));
        let mut n = self.head.load(Ordering::Acquire);
        // SAFETY: nodes are leaked, so every pointer in the chain stays valid.
        while let Some(node) = unsafe { n.as_ref() } {
            let claim = node.item.compare_exchange(
                std::ptr::null_mut(),
                item,
                Ordering::SeqCst,
                Ordering::Relaxed,
            );
            if claim.is_ok() {
                return Slot { node };
            }
            n = node.next.load(Ordering::Acquire);
        }
        let node: &'static Node<T> = Box::leak(Box::new(Node {
            item: AtomicPtr::new(item),
            next: AtomicPtr::new(std::ptr::null_mut()),
        }));
        let mut head = self.head.load(Ordering::Acquire);
        loop {
            node.next.store(head, Ordering::Relaxed);
            let ptr = node as *const Node<T> as *mut Node<T>;
            match self
                .head
                .compare_exchange(head, ptr, Ordering::SeqCst, Ordering::Acquire)
            {
                Ok(_) => return Slot { node },
                Err(h) => head = h,
            }
        }
    }

    /// Call `f` on every item (the handler's side: no lock, no allocation).
    pub(super) fn for_each(&self, mut f: impl FnMut(&T)) {
        let mut n = self.head.load(Ordering::SeqCst);
        // SAFETY: nodes are never freed; an item seen here is freed only if the handler had
        // not started when it was taken out, and the handler starts before it reads (SeqCst
        // on both sides: `HANDLING` then the item here, the item then `HANDLING` in `drop`).
        while let Some(node) = unsafe { n.as_ref() } {
            if let Some(item) = unsafe { node.item.load(Ordering::SeqCst).as_ref() } {
                f(item);
            }
            n = node.next.load(Ordering::Acquire);
        }
    }

    /// How many items are present (for tests).
    #[cfg(test)]
    pub(super) fn count(&self) -> usize {
        let mut n = 0;
        self.for_each(|_| n += 1);
        n
    }
}

impl<T: 'static> Drop for Slot<T> {
    fn drop(&mut self) {
        let item = self.node.item.swap(std::ptr::null_mut(), Ordering::SeqCst);
        if !item.is_null() && !HANDLING.load(Ordering::SeqCst) {
            // SAFETY: made by Box::into_raw in `insert`, and now unreachable from the list.
            drop(unsafe { Box::from_raw(item) });
        }
    }
}

impl<T> std::fmt::Debug for Slot<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Slot")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_items_come_and_go_and_nodes_are_reused() {
        static L: List<u32> = List::new();
        let a = L.insert(1);
        let b = L.insert(2);
        let mut seen = Vec::new();
        L.for_each(|v| seen.push(*v));
        seen.sort();
        assert_eq!(seen, [1, 2]);
        drop(a);
        assert_eq!(L.count(), 1);
        let c = L.insert(3);
        let mut nodes = 0;
        let mut n = L.head.load(Ordering::SeqCst);
        while let Some(node) = unsafe { n.as_ref() } {
            nodes += 1;
            n = node.next.load(Ordering::SeqCst);
        }
        assert_eq!(nodes, 2, "the emptied node was reused");
        drop((b, c));
        assert_eq!(L.count(), 0);
    }
}
