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

/// ``cmq_epoll_watch``, for output instead (`writable`: `EPOLLOUT`, with hang-up and errors).
int cmq_epoll_watch_for(int epoll, int fd, uint64_t key, int modify, int writable);

/// Removes `fd`.
int cmq_epoll_unwatch(int epoll, int fd);

/// Waits up to `timeout` ms for at most `capacity` ready descriptors; writes their keys.
int cmq_epoll_wait(int epoll, uint64_t *keys, int capacity, int timeout);

/// Reads (and so resets) an eventfd; non-blocking descriptors give -1/EAGAIN when unset.
int cmq_eventfd_reset(int fd);

/// `timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC)`.
int cmq_timerfd_create(void);

/// Arms `fd` to expire once at the absolute `CLOCK_MONOTONIC` time `deadline` (ns); 0 disarms.
int cmq_timerfd_arm(int fd, uint64_t deadline);

/// `CLOCK_MONOTONIC` now, in nanoseconds.
uint64_t cmq_monotonic_ns(void);

/// Makes the process's one signal pipe (`O_CLOEXEC | O_NONBLOCK`) and returns its read end;
/// -1 when it exists already or cannot be made.
int cmq_signal_pipe(void);

/// Routes `number` to the signal pipe: its handler writes the number (one byte) to it. Any
/// thread may take the signal; only the pipe's reader acts on it. -1 before `cmq_signal_pipe`.
int cmq_signal_route(int number);

#endif
