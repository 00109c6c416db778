#define _GNU_SOURCE
#include "CSystemCalls.h"

#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

int csc_receive_datagrams(int fd, void *region, size_t slot_size, size_t *lengths, unsigned count) {
    if (count > CSC_DATAGRAMS_MAX) count = CSC_DATAGRAMS_MAX;
    struct mmsghdr headers[CSC_DATAGRAMS_MAX];
    struct iovec vectors[CSC_DATAGRAMS_MAX];
    memset(headers, 0, sizeof(struct mmsghdr) * count);
    for (unsigned i = 0; i < count; i++) {
        vectors[i].iov_base = (char *)region + i * slot_size;
        vectors[i].iov_len = slot_size;
        headers[i].msg_hdr.msg_iov = &vectors[i];
        headers[i].msg_hdr.msg_iovlen = 1;
    }
    int received = recvmmsg(fd, headers, count, MSG_DONTWAIT, NULL);
    for (int i = 0; i < received; i++) lengths[i] = headers[i].msg_len;
    return received;
}
