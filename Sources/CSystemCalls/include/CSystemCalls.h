#ifndef CSYSTEMCALLS_H
#define CSYSTEMCALLS_H

#include <stddef.h>
#include <stdint.h>

/// The most datagrams one `csc_receive_datagrams` reads.
#define CSC_DATAGRAMS_MAX 64

/// `recvmmsg(2)` with `MSG_DONTWAIT` (glibc declares it only under `_GNU_SOURCE`, which
/// Swift's Glibc module does not set): up to `count` (at most `CSC_DATAGRAMS_MAX`)
/// datagrams from `fd`, datagram `i` into the `slot_size` bytes at `region + i *
/// slot_size` and its length into `lengths[i]`. When `waited_ns` is not NULL, `waited_ns[i]`
/// is how long datagram `i` had waited in the socket when the call returned, in
/// nanoseconds: the wall clock then less the datagram's kernel receive timestamp
/// (`SCM_TIMESTAMPNS`, see `csc_enable_receive_timestamps`), at least 0; -1 when the
/// datagram carries none. Returns how many came, or -1 with `errno`.
int csc_receive_datagrams(
    int fd, void *region, size_t slot_size, size_t *lengths, int64_t *waited_ns, unsigned count);

/// Asks the kernel to stamp every datagram `fd` receives from now on with the time it
/// arrived (`SO_TIMESTAMPNS`). Returns 0, or -1 with `errno`.
int csc_enable_receive_timestamps(int fd);

#endif
