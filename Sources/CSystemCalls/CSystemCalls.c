#define _GNU_SOURCE
#include "CSystemCalls.h"

#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>

/// Room for one `SCM_TIMESTAMPNS` control message, aligned as `struct cmsghdr` needs.
union csc_stamp_control {
    char bytes[CMSG_SPACE(sizeof(struct timespec))];
    struct cmsghdr align;
};

/// The receive timestamp `header` carries, in nanoseconds of the wall clock, or -1.
static int64_t csc_receive_stamp(struct msghdr *header) {
    if (header->msg_flags & MSG_CTRUNC) return -1;
    for (struct cmsghdr *message = CMSG_FIRSTHDR(header); message; message = CMSG_NXTHDR(header, message)) {
        if (message->cmsg_level != SOL_SOCKET || message->cmsg_type != SCM_TIMESTAMPNS) continue;
        struct timespec stamp;
        memcpy(&stamp, CMSG_DATA(message), sizeof stamp);
        return (int64_t)stamp.tv_sec * 1000000000 + stamp.tv_nsec;
    }
    return -1;
}

int csc_receive_datagrams(
    int fd, void *region, size_t slot_size, size_t *lengths, int64_t *waited_ns, unsigned count) {
    if (count > CSC_DATAGRAMS_MAX) count = CSC_DATAGRAMS_MAX;
    struct mmsghdr headers[CSC_DATAGRAMS_MAX];
    struct iovec vectors[CSC_DATAGRAMS_MAX];
    union csc_stamp_control controls[CSC_DATAGRAMS_MAX];
    memset(headers, 0, sizeof(struct mmsghdr) * count);
    for (unsigned i = 0; i < count; i++) {
        vectors[i].iov_base = (char *)region + i * slot_size;
        vectors[i].iov_len = slot_size;
        headers[i].msg_hdr.msg_iov = &vectors[i];
        headers[i].msg_hdr.msg_iovlen = 1;
        if (waited_ns) {
            headers[i].msg_hdr.msg_control = controls[i].bytes;
            headers[i].msg_hdr.msg_controllen = sizeof controls[i].bytes;
        }
    }
    int received = recvmmsg(fd, headers, count, MSG_DONTWAIT, NULL);
    if (received <= 0) return received;
    for (int i = 0; i < received; i++) lengths[i] = headers[i].msg_len;
    if (waited_ns) {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        int64_t wall = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
        for (int i = 0; i < received; i++) {
            int64_t stamp = csc_receive_stamp(&headers[i].msg_hdr);
            waited_ns[i] = stamp < 0 ? -1 : (wall > stamp ? wall - stamp : 0);
        }
    }
    return received;
}

int csc_enable_receive_timestamps(int fd) {
    int on = 1;
    return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
}
