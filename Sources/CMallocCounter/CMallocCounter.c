// The benchmark's allocation counter: the executable defines malloc and its relatives, which
// take precedence over glibc's for every caller in the process (symbol interposition), count
// the calling thread's allocations and forward to glibc's own entry points (`__libc_malloc`
// and friends, exported for exactly this). Nothing else changes: the same allocator serves
// every block, so `malloc_usable_size` and `free` of any block stay right.

#include "CMallocCounter.h"

#include <errno.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

// Initial-exec TLS: no allocation and no lock on first use from any thread.
static __thread uint64_t allocations __attribute__((tls_model("initial-exec")));

uint64_t cmc_thread_allocations(void) { return allocations; }

void *malloc(size_t size) {
    allocations += 1;
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    allocations += 1;
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    allocations += 1;
    return __libc_realloc(pointer, size);
}

void free(void *pointer) { __libc_free(pointer); }

void *memalign(size_t alignment, size_t size) {
    allocations += 1;
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    allocations += 1;
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *block = __libc_memalign(alignment, size);
    if (block == NULL && size != 0) return ENOMEM;
    allocations += 1;
    *result = block;
    return 0;
}
