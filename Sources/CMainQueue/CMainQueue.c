// _dispatch_get_main_queue_handle_4CF and _dispatch_main_queue_callback_4CF are implemented
// by libdispatch itself; the epoll helpers are here.
#include "CMainQueue.h"

#include <errno.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

int cmq_epoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

int cmq_epoll_watch(int epoll, int fd, uint64_t key, int modify) {
    struct epoll_event event = {0};
    event.events = EPOLLIN | EPOLLRDHUP;
    event.data.u64 = key;
    int result = epoll_ctl(epoll, modify ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &event);
    // A descriptor closed without being removed left the set (the kernel drops it), and its
    // number may come back as a new descriptor; one registered under a number the caller
    // thought free is there already. Either way the other operation is the right one.
    if (result != 0 && ((modify && errno == ENOENT) || (!modify && errno == EEXIST))) {
        result = epoll_ctl(epoll, modify ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event);
    }
    return result;
}

int cmq_epoll_unwatch(int epoll, int fd) {
    struct epoll_event event = {0};
    return epoll_ctl(epoll, EPOLL_CTL_DEL, fd, &event);
}

int cmq_epoll_wait(int epoll, uint64_t *keys, int capacity, int timeout) {
    struct epoll_event events[64];
    if (capacity > 64) capacity = 64;
    int ready = epoll_wait(epoll, events, capacity, timeout);
    for (int index = 0; index < ready; index++) keys[index] = events[index].data.u64;
    return ready;
}

int cmq_eventfd_reset(int fd) {
    eventfd_t value = 0;
    return eventfd_read(fd, &value);
}
