#ifndef CSYSTEMCALLS_H
#define CSYSTEMCALLS_H

#include <stddef.h>

/// The most datagrams one `csc_receive_datagrams` reads.
#define CSC_DATAGRAMS_MAX 64

/// `recvmmsg(2)` with `MSG_DONTWAIT` (glibc declares it only under `_GNU_SOURCE`, which
/// Swift's Glibc module does not set): up to `count` (at most `CSC_DATAGRAMS_MAX`)
/// datagrams from `fd`, datagram `i` into the `slot_size` bytes at `region + i *
/// slot_size` and its length into `lengths[i]`. Returns how many came, or -1 with `errno`.
int csc_receive_datagrams(int fd, void *region, size_t slot_size, size_t *lengths, unsigned count);

#endif
