#ifndef CMAINQUEUE_H
#define CMAINQUEUE_H

#include <stdint.h>

// libdispatch's hooks for an outside run loop on Linux (the ones swift-corelibs-foundation's
// RunLoop uses): the main queue's wake-up eventfd, and the call that drains the main queue
// on the main thread. Exported by libdispatch.so, declared in no public header.

/// The eventfd libdispatch writes to whenever work is enqueued on the main queue.
int _dispatch_get_main_queue_handle_4CF(void);

/// Runs the work waiting on the main queue; call on the main thread only.
void _dispatch_main_queue_callback_4CF(void *message);

// Thin epoll/eventfd wrappers: `struct epoll_event` is packed on x86_64, so Swift gets plain
// 64-bit keys instead. Each returns what the system call returns (-1 with errno set).

/// `epoll_create1(EPOLL_CLOEXEC)`.
int cmq_epoll_create(void);

/// Adds (or, with `modify`, changes) `fd` for input, hang-up and errors, tagged with `key`;
/// a `modify` of a descriptor the set no longer has adds it, an add of one it has changes it.
int cmq_epoll_watch(int epoll, int fd, uint64_t key, int modify);

/// Removes `fd`.
int cmq_epoll_unwatch(int epoll, int fd);

/// Waits up to `timeout` ms for at most `capacity` ready descriptors; writes their keys.
int cmq_epoll_wait(int epoll, uint64_t *keys, int capacity, int timeout);

/// Reads (and so resets) an eventfd; non-blocking descriptors give -1/EAGAIN when unset.
int cmq_eventfd_reset(int fd);

#endif
