#ifndef CMALLOCCOUNTER_H
#define CMALLOCCOUNTER_H

#include <stdint.h>

/// Heap allocations made by the calling thread so far (malloc, calloc, realloc, aligned
/// allocations), counted by the benchmark's own malloc, which forwards every
/// call to glibc's. Linked into `boardbridge-bench` only.
uint64_t cmc_thread_allocations(void);

#endif
